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

// BenchParams is a ParamsSource of the same INSECURE benchmark keys as BenchKeys (same
// id-seeded toxic waste, so the same verifying keys), held on the host as parameters read
// from disk would be: the pipeline then uploads them to each device, accounts their
// bytes on the host, and loads them again after an eviction by copying, not by making
// them anew. This is what a swap between circuits costs in production, so residency is
// benchmarked with it. On a backend.KeyGenerator (Maker, e.g. a GPU) the key is made there
// and read back (groth16.ProvingKey.HostParams); otherwise by groth16.DevSetup on the host.
type BenchParams struct {
	Maker backend.Backend
}

var _ ParamsSource = BenchParams{}

// Params makes id's benchmark parameters for shape.
func (b BenchParams) Params(ctx context.Context, id prover.CircuitID, shape *r1cs.Shape) (*groth16.Params, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	rng := benchKeyStream(id)
	if _, ok := b.Maker.(backend.KeyGenerator); !ok {
		return groth16.DevSetup(shape, rng)
	}
	pk, err := groth16.BenchSetup(b.Maker, shape, rng)
	if err != nil {
		return nil, fmt.Errorf("pipeline: bench parameters of %s: %w", id, err)
	}
	defer pk.Close()
	return pk.HostParams()
}
