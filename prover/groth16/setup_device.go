package groth16

import (
	"crypto/rand"
	"fmt"
	"io"

	"github.com/snarkpipe/snarkpipe/prover/backend"
	"github.com/snarkpipe/snarkpipe/prover/r1cs"
)

// BenchSetup makes an INSECURE benchmark key for shape on a backend that implements
// backend.KeyGenerator: the toxic waste is drawn from rng exactly as DevSetup draws it
// (so the same rng bytes give the same parameters; nil: crypto/rand) and is known to the caller, who could
// forge proofs with it. The vectors are computed and kept on the backend; the host gets
// only the verifying key, so every benchmark proof can be verified at any circuit size.
// The returned key's Params hold the VK and no host vectors, and are marked Dev.
func BenchSetup(be backend.Backend, shape *r1cs.Shape, rng io.Reader) (*ProvingKey, error) {
	kg, ok := be.(backend.KeyGenerator)
	if !ok {
		return nil, fmt.Errorf("groth16: backend %s cannot generate keys", be.Name())
	}
	if rng == nil {
		rng = rand.Reader
	}
	var w waste
	if err := w.sample(rng); err != nil {
		return nil, err
	}
	k, ic, err := kg.GenerateKey(shape, backend.SetupWaste{Tau: w.tau, Alpha: w.alpha, Beta: w.beta, Gamma: w.gamma, Delta: w.delta})
	if err != nil {
		return nil, fmt.Errorf("groth16: bench setup on %s: %w", be.Name(), err)
	}
	pk := &ProvingKey{Counts: shape.Counts(), backend: be, h: k.H, l: k.L, a: k.A, bg1: k.BG1, bg2: k.BG2}
	// The VK on the host: α, β, γ, δ and IC from the input scalars (few points).
	params, err := w.points(ic, nil, nil, nil, nil, nil)
	if err != nil {
		pk.Close()
		return nil, err
	}
	pk.Params = params
	return pk, nil
}
