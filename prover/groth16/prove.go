package groth16

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"math/big"
	"sync"
	"time"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/snarkpipe/snarkpipe/prover/r1cs"
)

// Assignment is one circuit's witness as the prover consumes it.
type Assignment struct {
	Inputs, Aux []fr.Element // ONE first in Inputs
	// A, B, C are the QAP row evaluations (circuit rows, then one row per input). The
	// prover zero-pads them to the domain size and overwrites them.
	A, B, C []fr.Element
}

// AssignmentOf takes a finished witness builder's vectors (no copy).
func AssignmentOf(w *r1cs.Witness) Assignment {
	w.Finish()
	return Assignment{Inputs: w.Inputs, Aux: w.Aux, A: w.A, B: w.B, C: w.C}
}

// Randomness is the (r, s) blinding of one proof.
type Randomness struct{ R, S fr.Element }

// SampleRandomness draws r and s from rng (nil: crypto/rand).
func SampleRandomness(rng io.Reader) (Randomness, error) {
	if rng == nil {
		rng = rand.Reader
	}
	var rs Randomness
	for _, e := range []*fr.Element{&rs.R, &rs.S} {
		var buf [48]byte
		if _, err := io.ReadFull(rng, buf[:]); err != nil {
			return rs, fmt.Errorf("groth16: proof randomness: %w", err)
		}
		e.SetBigInt(new(big.Int).SetBytes(buf[:]))
	}
	return rs, nil
}

// Timings is where one proof's time went. The MSMs run concurrently, so their durations
// overlap: Total, not their sum, is the proof's wall time.
type Timings struct {
	Quotient, MSMH, MSML, MSMA, MSMB1, MSMB2, Total time.Duration
}

// Prove makes one proof for the circuit whose density is d (the shape the key was
// checked against), with blinding rs (nil: fresh randomness).
func (pk *ProvingKey) Prove(d *r1cs.Density, as Assignment, rs *Randomness) (Proof, Timings, error) {
	start := time.Now()
	var tm Timings
	if err := pk.checkAssignment(d, &as); err != nil {
		return Proof{}, tm, err
	}
	if rs == nil {
		fresh, err := SampleRandomness(nil)
		if err != nil {
			return Proof{}, tm, err
		}
		rs = &fresh
	}
	m := pk.Counts.DomainSize()
	a, b, c := padTo(as.A, m), padTo(as.B, m), padTo(as.C, m)
	be := pk.backend

	t := time.Now()
	if err := be.QuotientH(a, b, c); err != nil {
		return Proof{}, tm, fmt.Errorf("groth16: quotient: %w", err)
	}
	tm.Quotient = time.Since(t)

	var res msmResults
	res.bScalars = densityScalars(c[:0], as.Inputs, &d.BInput, as.Aux, &d.BAux)
	aScalars := densityScalars(b[:0], as.Inputs, nil, as.Aux, &d.AAux)
	// The five MSMs are independent: they run at once, as gnark's prover does. On the CPU
	// backend each then uses a share of the cores, and an MSM with fewer tasks picks a
	// wider window with less splitting overhead; a GPU backend may overlap them on streams.
	msms := []struct {
		dur *time.Duration
		run func() error
	}{
		{&tm.MSMH, func() (err error) { res.h, err = be.MSMG1(pk.h, 0, a[:m-1]); return }},
		{&tm.MSML, func() (err error) { res.l, err = be.MSMG1(pk.l, 0, as.Aux); return }},
		{&tm.MSMA, func() (err error) { res.a, err = be.MSMG1(pk.a, 0, aScalars); return }},
		{&tm.MSMB1, func() (err error) { res.b1, err = be.MSMG1(pk.bg1, 0, res.bScalars); return }},
		{&tm.MSMB2, func() (err error) { res.b2, err = be.MSMG2(pk.bg2, 0, res.bScalars); return }},
	}
	errs := make([]error, len(msms))
	var wg sync.WaitGroup
	for i, s := range msms {
		wg.Add(1)
		go func() {
			defer wg.Done()
			t := time.Now()
			errs[i] = s.run()
			*s.dur = time.Since(t)
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return Proof{}, tm, fmt.Errorf("groth16: msm: %w", err)
	}
	proof := pk.assemble(&res, rs)
	tm.Total = time.Since(start)
	return proof, tm, nil
}

type msmResults struct {
	h, l, a, b1 bls.G1Jac
	b2          bls.G2Jac
	bScalars    []fr.Element
}

// assemble applies bellperson's blinding (spec groth16-gpu.md §2.4):
// A = α + rδ + A′, B = β + sδ + B′, C = s·A′ + r·B′₁ + rs·δ + sα + rβ + H + L.
func (pk *ProvingKey) assemble(res *msmResults, rs *Randomness) Proof {
	vk := &pk.Params.VK
	r, s := rs.R.BigInt(new(big.Int)), rs.S.BigInt(new(big.Int))
	var rsProd fr.Element
	rsProd.Mul(&rs.R, &rs.S)

	var A, t bls.G1Jac
	A.FromAffine(&vk.AlphaG1)
	t.FromAffine(&vk.DeltaG1)
	t.ScalarMultiplication(&t, r)
	A.AddAssign(&t).AddAssign(&res.a)

	var B, t2 bls.G2Jac
	B.FromAffine(&vk.BetaG2)
	t2.FromAffine(&vk.DeltaG2)
	t2.ScalarMultiplication(&t2, s)
	B.AddAssign(&t2).AddAssign(&res.b2)

	var C bls.G1Jac
	C.ScalarMultiplication(&res.a, s)
	t.ScalarMultiplication(&res.b1, r)
	C.AddAssign(&t)
	t.FromAffine(&vk.DeltaG1)
	t.ScalarMultiplication(&t, rsProd.BigInt(new(big.Int)))
	C.AddAssign(&t)
	t.FromAffine(&vk.AlphaG1)
	t.ScalarMultiplication(&t, s)
	C.AddAssign(&t)
	t.FromAffine(&vk.BetaG1)
	t.ScalarMultiplication(&t, r)
	C.AddAssign(&t).AddAssign(&res.h).AddAssign(&res.l)

	var p Proof
	p.A.FromJacobian(&A)
	p.B.FromJacobian(&B)
	p.C.FromJacobian(&C)
	return p
}

func (pk *ProvingKey) checkAssignment(d *r1cs.Density, as *Assignment) error {
	c := pk.Counts
	rows := c.Rows()
	switch {
	case len(as.Inputs) != c.NumInputs || len(as.Aux) != c.NumAux:
		return fmt.Errorf("groth16: assignment has %d inputs and %d aux, key wants %d and %d", len(as.Inputs), len(as.Aux), c.NumInputs, c.NumAux)
	case len(as.A) != rows || len(as.B) != rows || len(as.C) != rows:
		return fmt.Errorf("groth16: assignment has %d/%d/%d row values, key wants %d", len(as.A), len(as.B), len(as.C), rows)
	case d.AAux.Len != c.NumAux || d.BAux.Len != c.NumAux || d.BInput.Len != c.NumInputs:
		return fmt.Errorf("groth16: density bitmaps do not match the key's sizes")
	case d.AAux.Count() != c.AAux || d.BInput.Count() != c.BInput || d.BAux.Count() != c.BAux:
		return fmt.Errorf("groth16: density bitmaps do not match the key's density counts")
	}
	return nil
}

// padTo extends v with zeros to length m, reusing its capacity when it can.
func padTo(v []fr.Element, m int) []fr.Element {
	if cap(v) < m {
		w := make([]fr.Element, m)
		copy(w, v)
		return w
	}
	n := len(v)
	v = v[:m]
	clear(v[n:])
	return v
}

// densityScalars appends to dst the inputs selected by in (all when nil), then the aux
// values selected by aux: the scalars matching the density-filtered a / b vectors.
func densityScalars(dst, inputs []fr.Element, in *r1cs.Bitmap, aux []fr.Element, auxBits *r1cs.Bitmap) []fr.Element {
	for i := range inputs {
		if in == nil || in.Get(i) {
			dst = append(dst, inputs[i])
		}
	}
	for j := range aux {
		if auxBits.Get(j) {
			dst = append(dst, aux[j])
		}
	}
	return dst
}

// ProveBatch proves several circuits of the key's shape, each with its own blinding
// (rs[i], or fresh randomness when rs is nil), as bellperson's create_proof_batch.
func (pk *ProvingKey) ProveBatch(d *r1cs.Density, as []Assignment, rs []Randomness) ([]Proof, []Timings, error) {
	if rs != nil && len(rs) != len(as) {
		return nil, nil, fmt.Errorf("groth16: %d assignments but %d randomness values", len(as), len(rs))
	}
	proofs := make([]Proof, len(as))
	timings := make([]Timings, len(as))
	for i := range as {
		var r *Randomness
		if rs != nil {
			r = &rs[i]
		}
		var err error
		if proofs[i], timings[i], err = pk.Prove(d, as[i], r); err != nil {
			return nil, nil, fmt.Errorf("groth16: circuit %d of batch: %w", i, err)
		}
	}
	return proofs, timings, nil
}
