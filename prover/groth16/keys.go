package groth16

import (
	"fmt"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
)

// VerifyingKey is bellperson's Groth16 verifying key (spec groth16-gpu.md §1.3). Points are
// held in gnark-crypto's Montgomery affine form; IC has one point per public input, the
// constant ONE (input 0) included.
type VerifyingKey struct {
	AlphaG1 bls.G1Affine
	BetaG1  bls.G1Affine
	BetaG2  bls.G2Affine
	GammaG2 bls.G2Affine
	DeltaG1 bls.G1Affine
	DeltaG2 bls.G2Affine
	IC      []bls.G1Affine
}

// Params is a bellperson parameter file in memory (spec groth16-gpu.md §1.2): the verifying
// key followed by the five proving-key vectors, identity points already filtered out by
// the setup that produced them.
//
// The big vectors of a Params read by ReadParams live outside the Go heap (see offheap.go),
// so a Params must be released with Close once no proof uses it any more; after Close the
// vectors are nil. Params built by hand (for instance by a dev setup) may hold ordinary
// heap slices; Close then only drops the references.
type Params struct {
	VK VerifyingKey

	H   []bls.G1Affine // τ^i·t(τ)/δ, i = 0..m−2 (DomainSize−1 points)
	L   []bls.G1Affine // one point per aux variable
	A   []bls.G1Affine // all inputs, then the aux variables occurring in A
	BG1 []bls.G1Affine // variables occurring in B, inputs first
	BG2 []bls.G2Affine // same index set as BG1

	// Dev is true for parameters produced by a dev setup (random toxic waste, known to
	// whoever ran it). Such files carry a trailer (params_write.go) and are only accepted
	// by ReadParams with ReadOptions.AllowDev.
	Dev bool

	// offheap holds the anonymous mappings that back the vectors above, released by Close.
	offheap []offheapBlock
}

// Close releases the off-heap memory behind the vectors and clears them. It is not safe to
// call while another goroutine still reads the vectors; calling it twice is harmless.
func (p *Params) Close() error {
	var firstErr error
	for _, blk := range p.offheap {
		if err := blk.free(); err != nil && firstErr == nil {
			firstErr = err
		}
	}
	p.offheap = nil
	p.H, p.L, p.A, p.BG1, p.BG2 = nil, nil, nil, nil, nil
	return firstErr
}

// Equal reports whether two verifying keys hold the same points in the same order.
func (vk *VerifyingKey) Equal(o *VerifyingKey) bool {
	if !vk.AlphaG1.Equal(&o.AlphaG1) || !vk.BetaG1.Equal(&o.BetaG1) ||
		!vk.BetaG2.Equal(&o.BetaG2) || !vk.GammaG2.Equal(&o.GammaG2) ||
		!vk.DeltaG1.Equal(&o.DeltaG1) || !vk.DeltaG2.Equal(&o.DeltaG2) {
		return false
	}
	return equalG1s(vk.IC, o.IC)
}

// Difference names the first field, in file order, where o differs from vk ("alpha_g1",
// …, "delta_g2", "ic" for the IC length, "ic[i]"), or returns "" when they are equal.
func (vk *VerifyingKey) Difference(o *VerifyingKey) string {
	switch {
	case !vk.AlphaG1.Equal(&o.AlphaG1):
		return "alpha_g1"
	case !vk.BetaG1.Equal(&o.BetaG1):
		return "beta_g1"
	case !vk.BetaG2.Equal(&o.BetaG2):
		return "beta_g2"
	case !vk.GammaG2.Equal(&o.GammaG2):
		return "gamma_g2"
	case !vk.DeltaG1.Equal(&o.DeltaG1):
		return "delta_g1"
	case !vk.DeltaG2.Equal(&o.DeltaG2):
		return "delta_g2"
	case len(vk.IC) != len(o.IC):
		return fmt.Sprintf("ic (%d points, not %d)", len(o.IC), len(vk.IC))
	}
	for i := range vk.IC {
		if !vk.IC[i].Equal(&o.IC[i]) {
			return fmt.Sprintf("ic[%d]", i)
		}
	}
	return ""
}

// Equal reports whether two parameter sets hold the same points, in the same order, and
// the same Dev mark.
func (p *Params) Equal(o *Params) bool {
	return p.Dev == o.Dev && p.VK.Equal(&o.VK) &&
		equalG1s(p.H, o.H) && equalG1s(p.L, o.L) && equalG1s(p.A, o.A) &&
		equalG1s(p.BG1, o.BG1) && equalG2s(p.BG2, o.BG2)
}

func equalG1s(a, b []bls.G1Affine) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !a[i].Equal(&b[i]) {
			return false
		}
	}
	return true
}

func equalG2s(a, b []bls.G2Affine) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !a[i].Equal(&b[i]) {
			return false
		}
	}
	return true
}
