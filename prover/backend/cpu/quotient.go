package cpu

import (
	"fmt"
	"math/big"
	"math/bits"
	"sync"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr/fft"
)

// domain returns the cached evaluation domain of size m. Its generator is
// 7^((r−1)/2^32) raised to 2^(32−log m), and its coset shift 7: both equal bellperson's.
func (b *Backend) domain(m int) *fft.Domain {
	b.mu.Lock()
	defer b.mu.Unlock()
	d, ok := b.domains[uint64(m)]
	if !ok {
		d = fft.NewDomain(uint64(m))
		b.domains[uint64(m)] = d
	}
	return d
}

// QuotientH computes h = (A·B − C)/(X^m − 1) from row evaluations, the field elements
// bellperson computes (see backend.Backend), with six transforms instead of its seven.
// bellperson's h is icoset((coset(A)·coset(B) − coset(C))·z⁻¹), z = g^m − 1 being the
// value of X^m − 1 on the whole coset g·⟨ω⟩; icoset is linear and icoset(coset(C)) = C,
// so h = (icoset(coset(A)·coset(B)) − C)·z⁻¹, and C needs only its inverse transform.
// Bit-reversals are avoided by pairing gnark's DIF (natural in, bit-reversed out) with DIT
// (bit-reversed in, natural out); the one at the end puts h in natural order.
func (b *Backend) QuotientH(a, bv, c []fr.Element) error {
	m := len(a)
	if m < 2 || bits.OnesCount(uint(m)) != 1 || len(bv) != m || len(c) != m {
		return fmt.Errorf("cpu backend: QuotientH needs three vectors of one power-of-two length ≥ 2, got %d/%d/%d", len(a), len(bv), len(c))
	}
	d := b.domain(m)
	tasks := fft.WithNbTasks(b.tasks)
	var wg sync.WaitGroup
	for _, v := range [][]fr.Element{a, bv, c} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			d.FFTInverse(v, fft.DIF, tasks) // coefficients, bit-reversed
			if &v[0] != &c[0] {
				d.FFT(v, fft.DIT, fft.OnCoset(), tasks) // coset evaluations, natural order
			}
		}()
	}
	wg.Wait()
	parallelRange(m, b.tasks, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			a[i].Mul(&a[i], &bv[i])
		}
	})
	d.FFTInverse(a, fft.DIF, fft.OnCoset(), tasks) // icoset(A·B), bit-reversed like c

	var zInv fr.Element
	zInv.Exp(d.FrMultiplicativeGen, new(big.Int).SetUint64(uint64(m)))
	one := fr.One()
	zInv.Sub(&zInv, &one).Inverse(&zInv)
	parallelRange(m, b.tasks, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			a[i].Sub(&a[i], &c[i]).Mul(&a[i], &zInv)
		}
	})
	fft.BitReverse(a)
	return nil
}

func parallelRange(n, tasks int, f func(lo, hi int)) {
	tasks = max(1, min(tasks, n/4096))
	var wg sync.WaitGroup
	for t := 0; t < tasks; t++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f(n*t/tasks, n*(t+1)/tasks)
		}()
	}
	wg.Wait()
}
