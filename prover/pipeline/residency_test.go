package pipeline

import (
	"context"
	"errors"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/snarkpipe/snarkpipe/prover"
	"github.com/snarkpipe/snarkpipe/prover/backend"
	"github.com/snarkpipe/snarkpipe/prover/groth16"
	"github.com/snarkpipe/snarkpipe/prover/r1cs"
	"github.com/snarkpipe/snarkpipe/prover/srs"
	"github.com/snarkpipe/snarkpipe/prover/srs/srstest"
)

// With room for one resident circuit, a Critical job for a circuit that is not resident
// waits at the head of the queue: the Normal partitions already admitted finish, their
// circuit is evicted for it, it runs, and only then do the queued Normal partitions bring
// their circuit back. Nothing is left to chance: the order is asserted from timestamps.
func TestCriticalJobSwapsResidencyBeforeQueuedNormalWork(t *testing.T) {
	ca, cb := chain(160, 3), chain(120, 3)
	ha, hb := hintFor(t, ca), hintFor(t, cb)
	cfg := testConfig()
	// One worker for everything: the order asserted below is the run queue's. (With a
	// critical worker the critical job runs beside the normal work instead, and the host
	// arena's priority order decides; TestCriticalWorkerServesWhileWorkersBusy.)
	cfg.SynthesisWorkers, cfg.CriticalWorkers = 1, 0
	cfg.HostBudget = max(ha.hostEntryBytes(), hb.hostEntryBytes()) + 2*max(ha.slot().bytes(), hb.slot().bytes())
	if cfg.HostBudget >= ha.hostEntryBytes()+hb.hostEntryBytes() {
		t.Fatalf("budget %d holds both circuits; the test needs room for one", cfg.HostBudget)
	}
	p := startPipeline(t, cfg)
	await(t, submit(t, p, JobSpec{Priority: Normal, Circuits: []prover.Circuit{ca}})) // a resident

	var normal []*Job
	for i := 0; i < 5; i++ {
		normal = append(normal, submit(t, p, JobSpec{Priority: Normal, Circuits: []prover.Circuit{chain(160, uint64(10+i))}}))
	}
	crit := submit(t, p, JobSpec{Priority: Critical, Circuits: []prover.Circuit{chain(120, 7)}})
	critT := await(t, crit).Timings[0]
	if critT.HostLoad == 0 {
		t.Fatal("the critical circuit was not loaded by its own partition")
	}
	queuedAfter := 0
	for _, j := range normal {
		tm := await(t, j).Timings[0]
		if tm.SynthStart.Before(crit.submitted) {
			continue // admitted before the critical job arrived
		}
		queuedAfter++
		if !critT.SynthEnd.Before(tm.SynthStart) {
			t.Fatalf("queued normal partition started at %v, before the critical one finished synthesis at %v", tm.SynthStart, critT.SynthEnd)
		}
	}
	if queuedAfter == 0 {
		t.Fatal("no normal partition was queued behind the critical job")
	}
	s := p.Status()
	if s.Host.Evictions < 2 || s.Host.PeakUsed > cfg.HostBudget {
		t.Fatalf("host: %d evictions (want a evicted for b and b for a), peak %d of %d", s.Host.Evictions, s.Host.PeakUsed, cfg.HostBudget)
	}
}

// gatedSource holds every parameter load until gate is closed.
type gatedSource struct {
	inner   ParamsSource
	entered chan struct{}
	gate    chan struct{}
}

func (g *gatedSource) Params(ctx context.Context, id prover.CircuitID, shape *r1cs.Shape) (*groth16.Params, error) {
	select {
	case g.entered <- struct{}{}:
	default:
	}
	<-g.gate
	return g.inner.Params(ctx, id, shape)
}

// Cancelling the job whose partition is loading a circuit fails neither the load nor the
// other jobs waiting for that circuit.
func TestCancelledLoaderDoesNotFailWaiters(t *testing.T) {
	src := &gatedSource{inner: srs.Dev{Cache: srstest.Cache(t)}, entered: make(chan struct{}, 1), gate: make(chan struct{})}
	p, err := New(testConfig(), Deps{Backends: []backend.Backend{newCPU(t)}, Params: src})
	if err != nil {
		t.Fatal(err)
	}
	p.Start()
	defer p.Close()
	a := submit(t, p, JobSpec{Priority: Normal, Circuits: []prover.Circuit{chain(90, 3)}})
	<-src.entered
	b := submit(t, p, JobSpec{Priority: Normal, Circuits: []prover.Circuit{chain(90, 4)}})
	waitFor(t, "b admitted and waiting for the load", func() bool { return p.Status().Host.Grants == 2 })
	a.Cancel()
	if _, err := a.Await(context.Background()); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled job: %v", err)
	}
	close(src.gate)
	res := await(t, b)
	vk := devVK(t, chain(90, 3))
	if err := vk.Verify(&res.Proofs[0], []fr.Element{chainOutput(90, 4)}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "idle", func() bool { return idle(p) })
	if s := p.Status(); s.Host.Loads != 1 {
		t.Fatalf("circuit loaded %d times", s.Host.Loads)
	}
}
