package cpu

import (
	"fmt"
	"math/bits"
	"sync"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/snarkpipe/snarkpipe/prover/backend"
)

func checkBitmap(bitmap []uint64, n int) error {
	if n < 0 || (n+63)/64 > len(bitmap) {
		return fmt.Errorf("cpu backend: bitmap of %d words cannot hold %d bits", len(bitmap), n)
	}
	return nil
}

// forEachSetBit calls f(i) for every set bit i < n of bitmap[lo/64 ...], lo a multiple of 64.
func forEachSetBit(bitmap []uint64, lo, hi int, f func(i int)) {
	for w := lo / 64; w*64 < hi; w++ {
		word := bitmap[w]
		if rem := hi - w*64; rem < 64 {
			word &= (1 << rem) - 1
		}
		for word != 0 {
			f(w*64 + bits.TrailingZeros64(word))
			word &= word - 1
		}
	}
}

// chunks splits [0, n) into at most tasks ranges whose bounds are multiples of 64.
func chunks(n, tasks int) [][2]int {
	words := (n + 63) / 64
	tasks = max(1, min(tasks, words))
	out := make([][2]int, 0, tasks)
	for t := 0; t < tasks; t++ {
		lo, hi := words*t/tasks*64, min(words*(t+1)/tasks*64, n)
		if lo < hi {
			out = append(out, [2]int{lo, hi})
		}
	}
	return out
}

// jacobian is the part of gnark-crypto's G1Jac / G2Jac API the batch addition needs.
type jacobian[A, J any] interface {
	*J
	Set(*J) *J
	AddMixed(*A) *J
	AddAssign(*J) *J
}

// batchAdd returns identity + Σ pts[i] over the set bits i < len(pts), one partial sum
// per task.
func batchAdd[A, J any, PJ jacobian[A, J]](pts []A, bitmap []uint64, identity J, tasks int) J {
	parts := chunks(len(pts), tasks)
	sums := make([]J, len(parts))
	var wg sync.WaitGroup
	for k, c := range parts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			acc := PJ(&sums[k])
			acc.Set(&identity)
			forEachSetBit(bitmap, c[0], c[1], func(i int) { acc.AddMixed(&pts[i]) })
		}()
	}
	wg.Wait()
	total := identity
	for k := range sums {
		PJ(&total).AddAssign(&sums[k])
	}
	return total
}

// BatchAddG1 returns Σ bases[offset+i] over the set bits i < n.
func (b *Backend) BatchAddG1(bases backend.G1Bases, offset int, bitmap []uint64, n int) (bls.G1Jac, error) {
	var identity bls.G1Jac
	identity.X.SetOne()
	identity.Y.SetOne()
	if err := checkBitmap(bitmap, n); err != nil {
		return identity, err
	}
	pts, err := g1Slice(bases, offset, n)
	if err != nil {
		return identity, err
	}
	return batchAdd(pts, bitmap, identity, b.tasks), nil
}

// BatchAddG2 returns Σ bases[offset+i] over the set bits i < n.
func (b *Backend) BatchAddG2(bases backend.G2Bases, offset int, bitmap []uint64, n int) (bls.G2Jac, error) {
	var identity bls.G2Jac
	identity.X.SetOne()
	identity.Y.SetOne()
	if err := checkBitmap(bitmap, n); err != nil {
		return identity, err
	}
	pts, err := g2Slice(bases, offset, n)
	if err != nil {
		return identity, err
	}
	return batchAdd(pts, bitmap, identity, b.tasks), nil
}
