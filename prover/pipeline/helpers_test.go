package pipeline

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/snarkpipe/snarkpipe/prover"
	"github.com/snarkpipe/snarkpipe/prover/backend"
	"github.com/snarkpipe/snarkpipe/prover/backend/cpu"
	"github.com/snarkpipe/snarkpipe/prover/groth16"
	"github.com/snarkpipe/snarkpipe/prover/r1cs"
	"github.com/snarkpipe/snarkpipe/prover/r1cs/r1cstest"
	"github.com/snarkpipe/snarkpipe/prover/srs"
	"github.com/snarkpipe/snarkpipe/prover/srs/srstest"
)

// testConfig is a small pipeline for tests: explicit budgets, few workers.
func testConfig() Config {
	cfg := DefaultConfig()
	cfg.HostBudget = 1 << 30
	cfg.DeviceBudget = 1 << 30
	cfg.SynthesisWorkers = 2
	cfg.EvalTasks = 1
	cfg.TraceEvents = 10_000
	return cfg
}

func newCPU(t testing.TB) backend.Backend {
	t.Helper()
	be, err := cpu.New(cpu.Config{Tasks: 2})
	if err != nil {
		t.Fatal(err)
	}
	return be
}

// startPipeline starts a pipeline on one CPU backend with dev parameters from the shared
// test cache; it is closed when the test ends.
func startPipeline(t testing.TB, cfg Config) *Pipeline {
	t.Helper()
	p, err := New(cfg, Deps{Backends: []backend.Backend{newCPU(t)}, Params: srs.Dev{Cache: srstest.Cache(t)}})
	if err != nil {
		t.Fatal(err)
	}
	p.Start()
	t.Cleanup(func() { p.Close() })
	return p
}

// chain is a squaring chain whose circuit id does not depend on the start value, so the
// partitions of a job share one shape but have different witnesses.
func chain(n int, y0 uint64) prover.Circuit { return &r1cstest.Chain{N: n, Y0: y0} }

// chainOutput is the public input of chain(n, y0).
func chainOutput(n int, y0 uint64) fr.Element {
	var y fr.Element
	y.SetUint64(max(y0, 3))
	for i := 0; i < n; i++ {
		y.Square(&y)
	}
	return y
}

func submit(t testing.TB, p *Pipeline, spec JobSpec) *Job {
	t.Helper()
	j, err := p.Submit(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	return j
}

func await(t testing.TB, j *Job) Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := j.Await(ctx)
	if err != nil {
		t.Fatalf("job %d: %v", j.ID, err)
	}
	return res
}

// devVK returns the verifying key the pipeline's dev source uses for c.
func devVK(t testing.TB, c prover.Circuit) *groth16.VerifyingKey {
	t.Helper()
	shape, params := srstest.DevParams(t, c)
	_ = shape
	vk := params.VK
	params.Close()
	return &vk
}

// waitFor polls cond until it holds or the deadline passes.
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// hintFor records c and returns its hint (for sizing budgets in tests).
func hintFor(t testing.TB, c prover.Circuit) Hint {
	t.Helper()
	k := newKeyCS()
	if err := c.Synthesize(k); err != nil {
		t.Fatal(err)
	}
	rec := r1cs.NewRecorder(r1cs.Capacity{})
	if err := c.Synthesize(rec); err != nil {
		t.Fatal(err)
	}
	return hintOf(k.key(), rec.Finish())
}

// idle reports whether nothing holds memory for work: no grants, no waiters.
func idle(p *Pipeline) bool {
	s := p.Status()
	if s.Host.Grants != 0 || s.Host.Waiting != 0 || s.Queued != 0 || s.Handoff != 0 {
		return false
	}
	for _, d := range s.Devices {
		if d.Grants != 0 || d.Waiting != 0 {
			return false
		}
	}
	return true
}

var _ = fmt.Sprintf
