package groth16

import (
	"errors"
	"fmt"
	"slices"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/snarkpipe/snarkpipe/prover/backend"
)

// HostParams copies the key's resident vectors back into host parameters (off the Go
// heap, like a read parameter file) with a copy of its verifying key: a key made on a
// device (BenchSetup) can then be loaded on any backend, and re-loaded after an eviction,
// as parameters read from disk are. The backend must be a backend.BasesReader. The
// result is marked Dev (known toxic waste). The caller closes it.
func (pk *ProvingKey) HostParams() (*Params, error) {
	rd, ok := pk.backend.(backend.BasesReader)
	if !ok {
		return nil, fmt.Errorf("groth16: backend %s cannot read its bases back", pk.backend.Name())
	}
	if pk.Params == nil {
		return nil, errors.New("groth16: proving key without a verifying key")
	}
	p := &Params{VK: pk.Params.VK, Dev: true}
	p.VK.IC = slices.Clone(pk.Params.VK.IC)
	g1 := []struct {
		dst *[]bls.G1Affine
		src backend.G1Bases
	}{{&p.H, pk.h}, {&p.L, pk.l}, {&p.A, pk.a}, {&p.BG1, pk.bg1}}
	for _, v := range g1 {
		vec, blk, err := allocVector[bls.G1Affine](v.src.Len())
		if err == nil {
			p.offheap = append(p.offheap, blk)
			err = rd.ReadG1(v.src, 0, vec)
		}
		if err != nil {
			p.Close()
			return nil, fmt.Errorf("groth16: host copy of a G1 vector: %w", err)
		}
		*v.dst = vec
	}
	vec, blk, err := allocVector[bls.G2Affine](pk.bg2.Len())
	if err == nil {
		p.offheap = append(p.offheap, blk)
		err = rd.ReadG2(pk.bg2, 0, vec)
	}
	if err != nil {
		p.Close()
		return nil, fmt.Errorf("groth16: host copy of b_g2: %w", err)
	}
	p.BG2 = vec
	return p, nil
}
