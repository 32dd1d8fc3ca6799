package cpu

import (
	"math/big"
	"math/rand/v2"
	"slices"
	"testing"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr/fft"
)

func randScalars(rng *rand.Rand, n int) []fr.Element {
	s := make([]fr.Element, n)
	for i := range s {
		s[i].SetUint64(rng.Uint64())
		var hi fr.Element
		hi.SetUint64(rng.Uint64())
		s[i].Mul(&s[i], &hi)
	}
	return s
}

func randPoints(rng *rand.Rand, n int) ([]bls.G1Affine, []bls.G2Affine) {
	_, _, g1, g2 := bls.Generators()
	p1 := make([]bls.G1Affine, n)
	p2 := make([]bls.G2Affine, n)
	for i := range p1 {
		k := new(big.Int).SetUint64(rng.Uint64() | 1)
		p1[i].ScalarMultiplication(&g1, k)
		p2[i].ScalarMultiplication(&g2, k)
	}
	return p1, p2
}

func TestMSMAndBatchAddMatchNaive(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	b, _ := New(Config{Tasks: 3})
	p1, p2 := randPoints(rng, 300)
	b1, _ := b.LoadG1(p1)
	b2, _ := b.LoadG2(p2)
	for _, n := range []int{0, 1, 63, 64, 65, 200} {
		off := 300 - n - rng.IntN(300-n+1)%max(1, 300-n)
		off = max(0, min(off, 300-n))
		scalars := randScalars(rng, n)
		if n > 2 {
			scalars[0].SetZero()
			scalars[1].SetOne()
		}
		bitmap := make([]uint64, (n+63)/64+1)
		var want1 bls.G1Jac
		var want2 bls.G2Jac
		var wantAdd1 bls.G1Jac
		var wantAdd2 bls.G2Jac
		for i := 0; i < n; i++ {
			var t1 bls.G1Jac
			t1.FromAffine(&p1[off+i])
			t1.ScalarMultiplication(&t1, scalars[i].BigInt(new(big.Int)))
			want1.AddAssign(&t1)
			var t2 bls.G2Jac
			t2.FromAffine(&p2[off+i])
			t2.ScalarMultiplication(&t2, scalars[i].BigInt(new(big.Int)))
			want2.AddAssign(&t2)
			if rng.IntN(2) == 0 {
				bitmap[i/64] |= 1 << (i % 64)
				wantAdd1.AddMixed(&p1[off+i])
				wantAdd2.AddMixed(&p2[off+i])
			}
		}
		bitmap[len(bitmap)-1] |= 1 << 63 // bits past n are ignored
		got1, err := b.MSMG1(b1, off, scalars)
		if err != nil || !got1.Equal(&want1) {
			t.Fatalf("G1 MSM n=%d: %v", n, err)
		}
		got2, err := b.MSMG2(b2, off, scalars)
		if err != nil || !got2.Equal(&want2) {
			t.Fatalf("G2 MSM n=%d: %v", n, err)
		}
		add1, err := b.BatchAddG1(b1, off, bitmap, n)
		if err != nil || !add1.Equal(&wantAdd1) {
			t.Fatalf("G1 batch add n=%d: %v", n, err)
		}
		add2, err := b.BatchAddG2(b2, off, bitmap, n)
		if err != nil || !add2.Equal(&wantAdd2) {
			t.Fatalf("G2 batch add n=%d: %v", n, err)
		}
	}
	if _, err := b.MSMG1(b1, 299, make([]fr.Element, 2)); err == nil {
		t.Fatal("out-of-range MSM accepted")
	}
	if _, err := b.BatchAddG1(b1, 0, []uint64{1}, 65); err == nil {
		t.Fatal("short bitmap accepted")
	}
}

// evalPoly evaluates Σ coeffs[i]·x^i.
func evalPoly(coeffs []fr.Element, x fr.Element) fr.Element {
	var acc fr.Element
	for i := len(coeffs) - 1; i >= 0; i-- {
		acc.Mul(&acc, &x).Add(&acc, &coeffs[i])
	}
	return acc
}

// naiveInterpolate returns the coefficients of the polynomial taking values v on ⟨ω⟩.
func naiveInterpolate(v []fr.Element, omega fr.Element) []fr.Element {
	m := len(v)
	var omegaInv, mInv fr.Element
	omegaInv.Inverse(&omega)
	mInv.SetUint64(uint64(m))
	mInv.Inverse(&mInv)
	out := make([]fr.Element, m)
	for k := 0; k < m; k++ {
		var wk, pow, t fr.Element
		wk.Exp(omegaInv, big.NewInt(int64(k)))
		pow.SetOne()
		for j := 0; j < m; j++ {
			t.Mul(&v[j], &pow)
			out[k].Add(&out[k], &t)
			pow.Mul(&pow, &wk)
		}
		out[k].Mul(&out[k], &mInv)
	}
	return out
}

func TestQuotientHDividesByVanishing(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	b, _ := New(Config{Tasks: 2})
	for _, m := range []int{2, 16, 64} {
		a, bv := randScalars(rng, m), randScalars(rng, m)
		c := make([]fr.Element, m)
		for i := range c {
			c[i].Mul(&a[i], &bv[i])
		}
		omega := fft.NewDomain(uint64(m)).Generator
		A, B, C := naiveInterpolate(a, omega), naiveInterpolate(bv, omega), naiveInterpolate(c, omega)
		h := append([]fr.Element(nil), a...)
		if err := b.QuotientH(h, append([]fr.Element(nil), bv...), c); err != nil {
			t.Fatal(err)
		}
		if !h[m-1].IsZero() {
			t.Fatalf("m=%d: top coefficient of h not zero", m)
		}
		x := randScalars(rng, 1)[0]
		lhs := evalPoly(h, x)
		var z fr.Element
		z.Exp(x, big.NewInt(int64(m)))
		one := fr.One()
		z.Sub(&z, &one)
		lhs.Mul(&lhs, &z)
		ax, bx, cx := evalPoly(A, x), evalPoly(B, x), evalPoly(C, x)
		var rhs fr.Element
		rhs.Mul(&ax, &bx).Sub(&rhs, &cx)
		if lhs != rhs {
			t.Fatalf("m=%d: h·(X^m−1) ≠ A·B − C", m)
		}
	}
	if err := b.QuotientH(make([]fr.Element, 3), make([]fr.Element, 3), make([]fr.Element, 3)); err == nil {
		t.Fatal("non-power-of-two accepted")
	}
}

// bellpersonQuotient is bellperson's seven-transform h, written out as it computes it:
// every vector to coset evaluations, (a·b − c)·z⁻¹ there, and back.
func bellpersonQuotient(a, bv, c []fr.Element) []fr.Element {
	m := len(a)
	d := fft.NewDomain(uint64(m))
	a, bv, c = slices.Clone(a), slices.Clone(bv), slices.Clone(c)
	for _, v := range [][]fr.Element{a, bv, c} {
		d.FFTInverse(v, fft.DIF)
		fft.BitReverse(v)
		d.FFT(v, fft.DIF, fft.OnCoset())
		fft.BitReverse(v)
	}
	var zInv fr.Element
	zInv.Exp(d.FrMultiplicativeGen, big.NewInt(int64(m)))
	one := fr.One()
	zInv.Sub(&zInv, &one).Inverse(&zInv)
	for i := range a {
		a[i].Mul(&a[i], &bv[i]).Sub(&a[i], &c[i]).Mul(&a[i], &zInv)
	}
	d.FFTInverse(a, fft.DIF, fft.OnCoset())
	fft.BitReverse(a)
	return a
}

// TestQuotientHEqualsBellpersonFormula: the six-transform QuotientH returns exactly
// bellperson's seven-transform h, for satisfied rows and for rows that are not (c ≠ a·b,
// where h is not a quotient at all): the identity icoset(coset(C)) = C does not depend
// on the witness.
func TestQuotientHEqualsBellpersonFormula(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	b, _ := New(Config{Tasks: 2})
	for _, m := range []int{2, 8, 1 << 10, 1 << 13} {
		for _, satisfied := range []bool{true, false} {
			a, bv, c := randScalars(rng, m), randScalars(rng, m), randScalars(rng, m)
			if satisfied {
				for i := range c {
					c[i].Mul(&a[i], &bv[i])
				}
			}
			want := bellpersonQuotient(a, bv, c)
			if err := b.QuotientH(a, bv, c); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(a, want) {
				t.Fatalf("m=%d satisfied=%v: QuotientH differs from bellperson's formula", m, satisfied)
			}
		}
	}
}

// BenchmarkQuotientH: one quotient of 2^20 rows (the CPU backend's share of a proof).
func BenchmarkQuotientH(b *testing.B) {
	const m = 1 << 20
	rng := rand.New(rand.NewPCG(13, 14))
	a0, b0, c0 := randScalars(rng, m), randScalars(rng, m), randScalars(rng, m)
	be, err := New(DefaultConfig())
	if err != nil {
		b.Fatal(err)
	}
	a, bv, c := make([]fr.Element, m), make([]fr.Element, m), make([]fr.Element, m)
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		copy(a, a0)
		copy(bv, b0)
		copy(c, c0)
		b.StartTimer()
		if err := be.QuotientH(a, bv, c); err != nil {
			b.Fatal(err)
		}
	}
}
