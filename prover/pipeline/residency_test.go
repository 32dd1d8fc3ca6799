package pipeline

import (
	"testing"

	"github.com/snarkpipe/snarkpipe/prover"
)

// With room for one resident circuit, a Critical job for a circuit that is not resident
// waits at the head of the queue: the Normal partitions already admitted finish, their
// circuit is evicted for it, it runs, and only then do the queued Normal partitions bring
// their circuit back. Nothing is left to chance: the order is asserted from timestamps.
func TestCriticalJobSwapsResidencyBeforeQueuedNormalWork(t *testing.T) {
	ca, cb := chain(160, 3), chain(120, 3)
	ha, hb := hintFor(t, ca), hintFor(t, cb)
	cfg := testConfig()
	cfg.SynthesisWorkers = 1
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
