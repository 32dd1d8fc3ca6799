// Package sealertest starts a real sealer.Service for the tests of the packages that serve
// it (rpc and its front doors, the sealer's own tests): a CPU pipeline with dev parameters
// from the shared test cache (srstest), so proofs are real and verifiable.
package sealertest

import (
	"context"
	"testing"
	"time"

	"github.com/snarkpipe/snarkpipe/prover/backend"
	"github.com/snarkpipe/snarkpipe/prover/backend/cpu"
	"github.com/snarkpipe/snarkpipe/prover/pipeline"
	"github.com/snarkpipe/snarkpipe/prover/srs"
	"github.com/snarkpipe/snarkpipe/prover/srs/srstest"
	"github.com/snarkpipe/snarkpipe/sealer"
)

// CPUService starts a pipeline on the CPU backend (host and device budgets 16 GiB, one
// synthesis worker, dev parameters from the shared test cache) and a Service over it with
// cfg. deps supplies any optional collaborators (e.g. VerifyingKey); its Prover, Backend
// and DevParams are set here. Both are closed when the test ends.
func CPUService(t testing.TB, cfg sealer.Config, deps sealer.Deps) (*sealer.Service, *pipeline.Pipeline) {
	t.Helper()
	be, err := cpu.New(cpu.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	pcfg := pipeline.DefaultConfig()
	pcfg.HostBudget, pcfg.DeviceBudget = 16<<30, 16<<30
	pcfg.SynthesisWorkers = 1
	p, err := pipeline.New(pcfg, pipeline.Deps{Backends: []backend.Backend{be}, Params: srs.Dev{Cache: srstest.Cache(t)}})
	if err != nil {
		t.Fatal(err)
	}
	p.Start()
	t.Cleanup(func() { p.Close() })
	deps.Prover, deps.Backend, deps.DevParams = p, "cpu", true
	s, err := sealer.New(cfg, deps)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		_ = s.Close(ctx)
	})
	return s, p
}
