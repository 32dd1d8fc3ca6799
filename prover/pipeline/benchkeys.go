package pipeline

import (
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"math/rand/v2"

	"github.com/snarkpipe/snarkpipe/prover"
	"github.com/snarkpipe/snarkpipe/prover/backend"
	"github.com/snarkpipe/snarkpipe/prover/groth16"
	"github.com/snarkpipe/snarkpipe/prover/r1cs"
)

// BenchKeys is a KeySource of INSECURE benchmark keys: the toxic waste is drawn from a
// stream seeded by the circuit id alone, so anyone can recompute it and forge proofs.
// It serves benchmarks and tests, never a real proof. Being deterministic per circuit id,
// it gives every device the same verifying key for a circuit.
//
// On a backend.KeyGenerator (the GPU) the key is made on the device by groth16.BenchSetup
// and never crosses to the host, at any circuit size. On other backends (the CPU) the
// parameters are made in memory by groth16.DevSetup from the same stream (which draws the
// waste as BenchSetup does, so both give the same verifying key); that is only practical
// for small circuits.
type BenchKeys struct{}

var _ KeySource = BenchKeys{}

// ProvingKey makes id's benchmark key for shape on be.
func (BenchKeys) ProvingKey(ctx context.Context, id prover.CircuitID, shape *r1cs.Shape, be backend.Backend) (*groth16.ProvingKey, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	rng := benchKeyStream(id)
	if _, ok := be.(backend.KeyGenerator); ok {
		return groth16.BenchSetup(be, shape, rng)
	}
	params, err := groth16.DevSetup(shape, rng)
	if err != nil {
		return nil, fmt.Errorf("pipeline: bench key of %s: %w", id, err)
	}
	pk, err := groth16.NewProvingKey(be, params, shape.Counts())
	if err != nil {
		params.Close()
		return nil, err
	}
	return pk, nil
}

// benchKeyStream is the deterministic random stream of id's benchmark waste.
func benchKeyStream(id prover.CircuitID) io.Reader {
	return rand.NewChaCha8(sha256.Sum256([]byte("snarkpipe bench keys\x00" + string(id))))
}
