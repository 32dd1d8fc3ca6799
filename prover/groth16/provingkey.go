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
	streamed     backend.KeyParts // vectors in host memory (NewProvingKeyIn, Stream)
}

// NewProvingKey checks params against counts (the R1CS it must prove) and makes its
// vectors resident on be. The caller keeps params open while the key is in use.
func NewProvingKey(be backend.Backend, params *Params, counts r1cs.Counts) (*ProvingKey, error) {
	return NewProvingKeyIn(be, params, counts, 0)
}

// NewProvingKeyIn is NewProvingKey with the vectors named by host kept in page-locked
// host memory and streamed to the device for each proof (be must be a
// backend.KeyStreamer when host is not empty): the memory tiers' partly resident and
// streamed keys.
func NewProvingKeyIn(be backend.Backend, params *Params, counts r1cs.Counts, host backend.KeyParts) (*ProvingKey, error) {
	if err := params.CheckShape(ShapeCounts{
		Inputs: counts.NumInputs, Aux: counts.NumAux, DomainSize: counts.DomainSize(),
		AAux: counts.AAux, BInput: counts.BInput, BAux: counts.BAux,
	}); err != nil {
		return nil, err
	}
	if params.VK.DeltaG1.IsInfinity() || params.VK.DeltaG2.IsInfinity() {
		return nil, errors.New("groth16: delta is the identity")
	}
	ks, canStream := be.(backend.KeyStreamer)
	if host != 0 && !canStream {
		return nil, fmt.Errorf("groth16: %s cannot stream key vectors from host memory", be.Name())
	}
	pk := &ProvingKey{Params: params, Counts: counts, backend: be, streamed: host}
	var err error
	load := func(dst *backend.G1Bases, part backend.KeyParts, pts []bls.G1Affine) {
		if err != nil {
			return
		}
		if host&part != 0 {
			*dst, err = ks.LoadG1Host(pts)
		} else {
			*dst, err = be.LoadG1(pts)
		}
		if err != nil {
			err = fmt.Errorf("groth16: loading %s on %s: %w", part, be.Name(), err)
		}
	}
	load(&pk.h, backend.KeyH, params.H)
	load(&pk.l, backend.KeyL, params.L)
	load(&pk.a, backend.KeyA, params.A)
	load(&pk.bg1, backend.KeyBG1, params.BG1)
	if err == nil && host&backend.KeyBG2 != 0 {
		pk.bg2, err = ks.LoadG2Host(params.BG2)
	} else if err == nil {
		pk.bg2, err = be.LoadG2(params.BG2)
	}
	if err != nil {
		pk.Close()
		return nil, err
	}
	return pk, nil
}

// Stream moves the key's vectors named by parts from the device into page-locked host
// memory (see backend.KeyStreamer): a key made on the device (the bench's) for a device
// that cannot keep it. Vectors moved before an error stay moved.
func (pk *ProvingKey) Stream(parts backend.KeyParts) error {
	ks, ok := pk.backend.(backend.KeyStreamer)
	if !ok {
		return fmt.Errorf("groth16: %s cannot stream key vectors from host memory", pk.backend.Name())
	}
	k, err := ks.StreamKey(pk.residentKey(), parts)
	pk.h, pk.l, pk.a, pk.bg1, pk.bg2 = k.H, k.L, k.A, k.BG1, k.BG2
	if err != nil {
		return fmt.Errorf("groth16: streaming key vectors %s: %w", parts, err)
	}
	pk.streamed |= parts
	return nil
}

// Streamed names the vectors kept in host memory.
func (pk *ProvingKey) Streamed() backend.KeyParts { return pk.streamed }

func (pk *ProvingKey) residentKey() backend.ResidentKey {
	return backend.ResidentKey{H: pk.h, L: pk.l, A: pk.a, BG1: pk.bg1, BG2: pk.bg2}
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
