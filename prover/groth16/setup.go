package groth16

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"math/big"
	"sync/atomic"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr/fft"
	"github.com/snarkpipe/snarkpipe/prover/r1cs"
)

// DevSetup generates parameters for a recorded R1CS from random toxic waste read from rng
// (nil: crypto/rand), following bellperson's generator: the a, b and l queries are the
// variables' QAP polynomials evaluated at τ in the Lagrange basis of bellperson's domain,
// h is τ^i·t(τ)/δ. Whoever knows the waste can forge proofs, so the result is marked Dev.
func DevSetup(shape *r1cs.Shape, rng io.Reader) (*Params, error) {
	return DevSetupProgress(shape, rng, nil)
}

// SetupProgress is told how far a dev setup's point multiplications are: done of total
// work units (a G1 product is one, a G2 product three). It is called from several
// goroutines: done is a running total, and calls may arrive slightly out of order.
type SetupProgress func(done, total int64)

// DevSetupProgress is DevSetup reporting its progress (nil: none), for the minutes a
// large circuit's setup takes.
func DevSetupProgress(shape *r1cs.Shape, rng io.Reader, progress SetupProgress) (*Params, error) {
	if rng == nil {
		rng = rand.Reader
	}
	var w waste
	if err := w.sample(rng); err != nil {
		return nil, err
	}
	m := shape.DomainSize()
	lagrange, tAtTau, err := lagrangeAt(&w.tau, m)
	if err != nil {
		return nil, err
	}
	u, v, wt := evalColumns(shape, lagrange)

	var gammaInv, deltaInv fr.Element
	gammaInv.Inverse(&w.gamma)
	deltaInv.Inverse(&w.delta)
	nIn := shape.NumInputs
	ic := make([]fr.Element, nIn)
	l := make([]fr.Element, shape.NumAux)
	for col := range u {
		var s, t fr.Element
		s.Mul(&w.beta, &u[col])
		t.Mul(&w.alpha, &v[col])
		s.Add(&s, &t).Add(&s, &wt[col])
		if col < nIn {
			ic[col].Mul(&s, &gammaInv)
		} else {
			l[col-nIn].Mul(&s, &deltaInv)
		}
	}
	for j := range l {
		if l[j].IsZero() {
			return nil, fmt.Errorf("groth16: dev setup: aux variable %d occurs in no constraint (bellperson refuses such circuits too)", j)
		}
	}
	h := make([]fr.Element, m-1)
	var pow fr.Element
	pow.Mul(&tAtTau, &deltaInv)
	for i := range h {
		h[i] = pow
		pow.Mul(&pow, &w.tau)
	}
	aScalars := selectColumns(u, nIn, nil, &shape.AAux)
	bScalars := selectColumns(v, nIn, &shape.BInput, &shape.BAux)
	return w.points(ic, h, l, aScalars, bScalars, progress)
}

// waste is the toxic waste of one setup.
type waste struct{ tau, alpha, beta, gamma, delta fr.Element }

func (w *waste) sample(rng io.Reader) error {
	for _, e := range []*fr.Element{&w.tau, &w.alpha, &w.beta, &w.gamma, &w.delta} {
		var buf [48]byte // 384 bits reduced mod r: negligible bias
		for e.IsZero() {
			if _, err := io.ReadFull(rng, buf[:]); err != nil {
				return fmt.Errorf("groth16: dev setup randomness: %w", err)
			}
			e.SetBigInt(new(big.Int).SetBytes(buf[:]))
		}
	}
	return nil
}

func (w *waste) points(ic, h, l, a, b []fr.Element, progress SetupProgress) (*Params, error) {
	_, _, g1, g2 := bls.Generators()
	var tickG1, tickG2 func(int)
	if progress != nil {
		total := int64(len(ic) + len(h) + len(l) + len(a) + 4*len(b))
		var done atomic.Int64
		tickG1 = func(n int) { progress(done.Add(int64(n)), total) }
		tickG2 = func(n int) { progress(done.Add(3*int64(n)), total) }
	}
	p := &Params{Dev: true}
	p.VK.AlphaG1 = fixedBaseG1(&g1, []fr.Element{w.alpha}, nil)[0]
	betas := fixedBaseG1(&g1, []fr.Element{w.beta, w.delta}, nil)
	p.VK.BetaG1, p.VK.DeltaG1 = betas[0], betas[1]
	g2s := fixedBaseG2(&g2, []fr.Element{w.beta, w.gamma, w.delta}, nil)
	p.VK.BetaG2, p.VK.GammaG2, p.VK.DeltaG2 = g2s[0], g2s[1], g2s[2]
	p.VK.IC = fixedBaseG1(&g1, ic, tickG1)
	p.H = fixedBaseG1(&g1, h, tickG1)
	p.L = fixedBaseG1(&g1, l, tickG1)
	p.A = fixedBaseG1(&g1, a, tickG1)
	p.BG1 = fixedBaseG1(&g1, b, tickG1)
	p.BG2 = fixedBaseG2(&g2, b, tickG2)
	for _, vec := range []struct {
		name string
		pts  []bls.G1Affine
	}{{"ic", p.VK.IC}, {"h", p.H}, {"l", p.L}, {"a", p.A}, {"b_g1", p.BG1}} {
		for i := range vec.pts {
			if vec.pts[i].IsInfinity() {
				return nil, fmt.Errorf("groth16: dev setup produced the identity at %s[%d] (unlucky τ or a degenerate circuit)", vec.name, i)
			}
		}
	}
	return p, nil
}

// lagrangeAt returns L_j(τ) for j < m over bellperson's domain ⟨ω⟩ and t(τ) = τ^m − 1:
// L_j(τ) = t(τ)/m · ω^j/(τ − ω^j).
func lagrangeAt(tau *fr.Element, m int) ([]fr.Element, fr.Element, error) {
	omega := fft.NewDomain(uint64(m)).Generator
	var t fr.Element
	t.Exp(*tau, big.NewInt(int64(m)))
	one := fr.One()
	t.Sub(&t, &one)
	if t.IsZero() {
		return nil, t, errors.New("groth16: dev setup: τ fell in the domain")
	}
	den := make([]fr.Element, m)
	num := make([]fr.Element, m)
	var wj fr.Element
	wj.SetOne()
	for j := 0; j < m; j++ {
		num[j] = wj
		den[j].Sub(tau, &wj)
		wj.Mul(&wj, &omega)
	}
	den = fr.BatchInvert(den)
	var scale fr.Element
	scale.SetUint64(uint64(m))
	scale.Inverse(&scale).Mul(&scale, &t)
	for j := range num {
		num[j].Mul(&num[j], &den[j]).Mul(&num[j], &scale)
	}
	return num, t, nil
}

// evalColumns returns, per column of z, u(τ), v(τ), w(τ) = Σ_rows coeff·L_row(τ) for A, B, C.
func evalColumns(s *r1cs.Shape, lagrange []fr.Element) (u, v, w []fr.Element) {
	cols := s.NumInputs + s.NumAux
	out := [3][]fr.Element{}
	for k, m := range []*r1cs.Matrix{&s.A, &s.B, &s.C} {
		acc := make([]fr.Element, cols)
		var t fr.Element
		for j := 0; j < s.Rows(); j++ {
			for i := m.RowPtr[j]; i < m.RowPtr[j+1]; i++ {
				t.Mul(&s.Coeffs[m.Coeff[i]], &lagrange[j])
				acc[m.Col[i]].Add(&acc[m.Col[i]], &t)
			}
		}
		out[k] = acc
	}
	return out[0], out[1], out[2]
}

// selectColumns keeps the inputs marked in in (all when in is nil), then the aux variables
// marked in aux, in variable order: the layout of the a and b vectors.
func selectColumns(vals []fr.Element, nIn int, in, aux *r1cs.Bitmap) []fr.Element {
	var out []fr.Element
	for i := 0; i < nIn; i++ {
		if in == nil || in.Get(i) {
			out = append(out, vals[i])
		}
	}
	for j := 0; j < len(vals)-nIn; j++ {
		if aux.Get(j) {
			out = append(out, vals[nIn+j])
		}
	}
	return out
}
