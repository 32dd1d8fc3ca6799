package pipeline

import (
	"fmt"
	"testing"
	"time"

	"github.com/snarkpipe/snarkpipe/prover"
)

// A Critical job submitted behind a queue of Normal jobs starts its synthesis before any
// Normal partition that was still queued when it arrived (asserted from the timestamps),
// whether a critical worker takes it or the regular one.
func TestCriticalOvertakesQueuedNormalPartitions(t *testing.T) {
	for _, critical := range []int{1, 0} {
		t.Run(fmt.Sprintf("critical workers %d", critical), func(t *testing.T) { criticalOvertakes(t, critical) })
	}
}

func criticalOvertakes(t *testing.T, criticalWorkers int) {
	cfg := testConfig()
	cfg.SynthesisWorkers, cfg.CriticalWorkers = 1, criticalWorkers
	p := startPipeline(t, cfg)
	// Warm the circuit so every partition below costs the same.
	await(t, submit(t, p, JobSpec{Priority: Normal, Circuits: []prover.Circuit{chain(300, 3)}}))

	// The only regular worker is held while the queue is built, so that on a loaded
	// machine it cannot drain the queue before the critical job arrives.
	gate, entered := make(chan struct{}), make(chan struct{}, 1)
	holder := submit(t, p, JobSpec{Kind: "holder", Priority: Normal,
		Circuits: []prover.Circuit{&blocking{inner: chain(300, 4), gate: gate, entered: entered}}})
	<-entered
	var normal []*Job
	for i := 0; i < 6; i++ {
		normal = append(normal, submit(t, p, JobSpec{Kind: "normal", Priority: Normal,
			Circuits: []prover.Circuit{chain(300, uint64(10+i)), chain(300, uint64(20+i))}}))
	}
	crit := submit(t, p, JobSpec{Kind: "critical", Priority: Critical, Circuits: []prover.Circuit{chain(300, 99), chain(300, 98)}})
	close(gate)
	await(t, holder)
	critRes := await(t, crit)
	critStart := critRes.Timings[0].SynthStart
	for _, tm := range critRes.Timings {
		if tm.SynthStart.Before(critStart) {
			critStart = tm.SynthStart
		}
	}
	var overtaken, startedBefore int
	for _, j := range normal {
		for _, tm := range await(t, j).Timings {
			if tm.SynthStart.Before(crit.submitted) {
				startedBefore++
				continue
			}
			// Queued when the critical job arrived: must start after it.
			overtaken++
			if !critStart.Before(tm.SynthStart) {
				t.Fatalf("normal partition queued at %v started synthesis at %v, before the critical job (%v)",
					tm.Submitted, tm.SynthStart, critStart)
			}
			// Both critical partitions, not just the first, go before queued normal work.
			for _, ct := range critRes.Timings {
				if !ct.SynthStart.Before(tm.SynthStart) {
					t.Fatalf("critical partition started at %v, after a queued normal one at %v", ct.SynthStart, tm.SynthStart)
				}
			}
		}
	}
	if overtaken < 8 {
		t.Fatalf("only %d normal partitions were still queued (started before: %d); the test did not build a queue", overtaken, startedBefore)
	}
}

// Equal priorities run oldest job first, then by partition index.
func TestEqualPrioritiesRunInSubmissionOrder(t *testing.T) {
	cfg := testConfig()
	cfg.SynthesisWorkers = 1
	p := startPipeline(t, cfg)
	var jobs []*Job
	for i := 0; i < 4; i++ {
		jobs = append(jobs, submit(t, p, JobSpec{Priority: Low, Circuits: []prover.Circuit{chain(100, uint64(3+i)), chain(100, uint64(9+i))}}))
	}
	var last time.Time
	for _, j := range jobs {
		for _, tm := range await(t, j).Timings {
			if tm.SynthStart.Before(last) {
				t.Fatalf("job %d partition started at %v, before the previous one at %v", j.ID, tm.SynthStart, last)
			}
			last = tm.SynthStart
		}
	}
}

// A Critical job is synthesized by the critical worker while the only regular synthesis
// worker is held by a Normal partition (here blocked in its witness synthesis; in the GPU
// run of itests' TestLoadMixed the late Winning PoSt waited 27.9 s for that worker).
// Without critical workers the same job waits in the queue until the worker comes free.
func TestCriticalWorkerServesWhileWorkersBusy(t *testing.T) {
	for _, critical := range []int{1, 0} {
		cfg := testConfig()
		cfg.SynthesisWorkers = 1
		cfg.CriticalWorkers = critical
		p := startPipeline(t, cfg)
		gate := make(chan struct{})
		entered := make(chan struct{}, 1)
		normal := submit(t, p, JobSpec{Kind: "normal", Priority: Normal,
			Circuits: []prover.Circuit{&blocking{inner: chain(60, 3), gate: gate, entered: entered}}})
		<-entered // the regular worker is inside the normal partition's synthesis
		crit := submit(t, p, JobSpec{Kind: "critical", Priority: Critical, Circuits: []prover.Circuit{chain(60, 5)}})
		if critical > 0 {
			await(t, crit) // finishes with the gate still closed
		} else {
			waitFor(t, "critical partition queued", func() bool { return p.Status().Queued == 1 })
			select {
			case <-crit.done:
				t.Fatal("without critical workers the critical job finished while the only worker was blocked")
			case <-time.After(200 * time.Millisecond):
			}
		}
		close(gate)
		await(t, normal)
		if critical == 0 {
			await(t, crit)
		}
		waitFor(t, "reservations released", func() bool { return idle(p) })
	}
}
