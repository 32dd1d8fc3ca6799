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

// BatchAddG1 returns Σ bases[offset+i] over the set bits i < n.
func (b *Backend) BatchAddG1(bases backend.G1Bases, offset int, bitmap []uint64, n int) (bls.G1Jac, error) {
	var total bls.G1Jac
	total.Z.SetZero()
	total.X.SetOne()
	total.Y.SetOne()
	if err := checkBitmap(bitmap, n); err != nil {
		return total, err
	}
	pts, err := g1Slice(bases, offset, n)
	if err != nil {
		return total, err
	}
	parts := chunks(n, b.tasks)
	sums := make([]bls.G1Jac, len(parts))
	var wg sync.WaitGroup
	for k, c := range parts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			acc := &sums[k]
			acc.Set(&total)
			forEachSetBit(bitmap, c[0], c[1], func(i int) { acc.AddMixed(&pts[i]) })
		}()
	}
	wg.Wait()
	for k := range sums {
		total.AddAssign(&sums[k])
	}
	return total, nil
}

// BatchAddG2 returns Σ bases[offset+i] over the set bits i < n.
func (b *Backend) BatchAddG2(bases backend.G2Bases, offset int, bitmap []uint64, n int) (bls.G2Jac, error) {
	var total bls.G2Jac
	total.Z.SetZero()
	total.X.SetOne()
	total.Y.SetOne()
	if err := checkBitmap(bitmap, n); err != nil {
		return total, err
	}
	pts, err := g2Slice(bases, offset, n)
	if err != nil {
		return total, err
	}
	parts := chunks(n, b.tasks)
	sums := make([]bls.G2Jac, len(parts))
	var wg sync.WaitGroup
	for k, c := range parts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			acc := &sums[k]
			acc.Set(&total)
			forEachSetBit(bitmap, c[0], c[1], func(i int) { acc.AddMixed(&pts[i]) })
		}()
	}
	wg.Wait()
	for k := range sums {
		total.AddAssign(&sums[k])
	}
	return total, nil
}
