package groth16

import (
	"errors"
	"fmt"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/snarkpipe/snarkpipe/prover/backend"
	"github.com/snarkpipe/snarkpipe/prover/r1cs"
)

// ProvingKey is a parameter set whose vectors are resident on one backend, checked
// against the shape it proves.
type ProvingKey struct {
	Params  *Params
	Counts  r1cs.Counts
	backend backend.Backend

	h, l, a, bg1 backend.G1Bases
	bg2          backend.G2Bases
}

// NewProvingKey checks params against counts (the R1CS it must prove) and makes its
// vectors resident on be. The caller keeps params open while the key is in use.
func NewProvingKey(be backend.Backend, params *Params, counts r1cs.Counts) (*ProvingKey, error) {
	if err := params.CheckShape(ShapeCounts{
		Inputs: counts.NumInputs, Aux: counts.NumAux, DomainSize: counts.DomainSize(),
		AAux: counts.AAux, BInput: counts.BInput, BAux: counts.BAux,
	}); err != nil {
		return nil, err
	}
	if params.VK.DeltaG1.IsInfinity() || params.VK.DeltaG2.IsInfinity() {
		return nil, errors.New("groth16: delta is the identity")
	}
	pk := &ProvingKey{Params: params, Counts: counts, backend: be}
	var err error
	load := func(dst *backend.G1Bases, name string, pts []bls.G1Affine) {
		if err == nil {
			*dst, err = be.LoadG1(pts)
			if err != nil {
				err = fmt.Errorf("groth16: loading %s on %s: %w", name, be.Name(), err)
			}
		}
	}
	load(&pk.h, "h", params.H)
	load(&pk.l, "l", params.L)
	load(&pk.a, "a", params.A)
	load(&pk.bg1, "b_g1", params.BG1)
	if err == nil {
		pk.bg2, err = be.LoadG2(params.BG2)
	}
	if err != nil {
		pk.Close()
		return nil, err
	}
	return pk, nil
}

// Close releases the resident bases (not the Params).
func (pk *ProvingKey) Close() error {
	var first error
	for _, b := range []interface{ Close() error }{pk.h, pk.l, pk.a, pk.bg1, pk.bg2} {
		if b == nil {
			continue
		}
		if err := b.Close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}
