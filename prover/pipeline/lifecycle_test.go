package pipeline

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/snarkpipe/snarkpipe/prover"
	"github.com/snarkpipe/snarkpipe/prover/backend"
	"github.com/snarkpipe/snarkpipe/prover/r1cs"
	"github.com/snarkpipe/snarkpipe/prover/srs"
	"github.com/snarkpipe/snarkpipe/prover/srs/srstest"
)

// failing refuses to synthesize a witness (as bad vanilla data would).
type failing struct{ fail bool }

func (*failing) ID() prover.CircuitID { return "test-chain-40" }
func (f *failing) Synthesize(cs r1cs.ConstraintSystem) error {
	if _, ok := cs.(*assignCS); ok && f.fail {
		return errors.New("bad witness data")
	}
	return chain(40, 3).Synthesize(cs)
}

func TestIdempotency(t *testing.T) {
	cfg := testConfig()
	cfg.IdempotencyTTL = 300 * time.Millisecond
	p := startPipeline(t, cfg)
	gate := make(chan struct{})
	slow := &blocking{inner: chain(40, 3), gate: gate, entered: make(chan struct{}, 1)}

	// In flight: the same job comes back.
	a := submit(t, p, JobSpec{Key: "k1", Priority: Normal, Circuits: []prover.Circuit{slow}})
	b := submit(t, p, JobSpec{Key: "k1", Priority: Normal, Circuits: []prover.Circuit{chain(40, 9)}})
	if a != b {
		t.Fatal("a key in flight started a second job")
	}
	close(gate)
	await(t, a)
	// Succeeded within the TTL: still the same job, with its result.
	if c := submit(t, p, JobSpec{Key: "k1", Priority: Normal, Circuits: []prover.Circuit{chain(40, 9)}}); c != a {
		t.Fatal("a key that succeeded within the TTL started a new job")
	}
	// After the TTL: a new job.
	time.Sleep(cfg.IdempotencyTTL + 50*time.Millisecond)
	d := submit(t, p, JobSpec{Key: "k1", Priority: Normal, Circuits: []prover.Circuit{chain(40, 9)}})
	if d == a {
		t.Fatal("an expired key returned the old job")
	}
	await(t, d)

	// Failed: runs again.
	f := submit(t, p, JobSpec{Key: "k2", Priority: Normal, Circuits: []prover.Circuit{&failing{fail: true}}})
	if _, err := f.Await(context.Background()); err == nil || !strings.Contains(err.Error(), "bad witness data") {
		t.Fatalf("failing job: %v", err)
	}
	g := submit(t, p, JobSpec{Key: "k2", Priority: Normal, Circuits: []prover.Circuit{&failing{}}})
	if g == f {
		t.Fatal("a failed key returned the failed job")
	}
	await(t, g)

	// Cancelled: runs again.
	gate2 := make(chan struct{})
	h := submit(t, p, JobSpec{Key: "k3", Priority: Normal, Circuits: []prover.Circuit{&blocking{inner: chain(40, 3), gate: gate2, entered: make(chan struct{}, 1)}}})
	h.Cancel()
	close(gate2)
	if _, err := h.Await(context.Background()); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled job: %v", err)
	}
	if i := submit(t, p, JobSpec{Key: "k3", Priority: Normal, Circuits: []prover.Circuit{chain(40, 3)}}); i == h {
		t.Fatal("a cancelled key returned the cancelled job")
	} else {
		await(t, i)
	}
}

// No goroutine or buffer leak after 1,000 small jobs (150 under -short); the pool never holds more slots
// than can be in flight at once.
func TestNoLeakAfterManyJobs(t *testing.T) {
	before := runtime.NumGoroutine()
	cfg := testConfig()
	cfg.TraceEvents = 500 // the ring buffer wraps many times
	p, err := New(cfg, Deps{Backends: []backend.Backend{newCPU(t)}, Params: srs.Dev{Cache: srstest.Cache(t)}})
	if err != nil {
		t.Fatal(err)
	}
	p.Start()
	jobs := 1000
	if testing.Short() { // ~40 ms a job on two shared cores: the full count runs without -short
		jobs = 150
	}
	var wg sync.WaitGroup
	sem := make(chan struct{}, 32)
	errs := make(chan error, 1)
	for i := 0; i < jobs; i++ {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			j, err := p.Submit(context.Background(), JobSpec{Priority: Priority(i % 3), Circuits: []prover.Circuit{chain(8, uint64(3+i))}})
			if err == nil {
				_, err = j.Await(context.Background())
			}
			if err != nil {
				select {
				case errs <- err:
				default:
				}
			}
		}()
	}
	wg.Wait()
	select {
	case err := <-errs:
		t.Fatal(err)
	default:
	}
	s := p.Status()
	// Low to High only: a Critical partition may pass the hand-off bound (pqueue.push),
	// so with Critical jobs this count has no fixed bound (their memory still has);
	// TestCriticalWorkerServesWhileWorkersBusy checks that they leave nothing behind.
	inFlight := cfg.SynthesisWorkers + cfg.CriticalWorkers + cfg.HandoffDepth + cfg.WorkersPerDevice
	if s.Host.LiveSlots > inFlight || s.Host.SlotAllocs > inFlight {
		t.Fatalf("%d slots live, %d allocated in all, for at most %d partitions in flight", s.Host.LiveSlots, s.Host.SlotAllocs, inFlight)
	}
	p.mu.Lock()
	active := len(p.active)
	p.mu.Unlock()
	if active != 0 {
		t.Fatalf("%d finished jobs still tracked", active)
	}
	p.Close()
	s = p.Status()
	if s.Host.LiveBytes != 0 || s.Host.Used != 0 || s.Devices[0].Used != 0 {
		t.Fatalf("after Close: host live %d used %d, device used %d", s.Host.LiveBytes, s.Host.Used, s.Devices[0].Used)
	}
	waitFor(t, "goroutines to exit", func() bool { return runtime.NumGoroutine() <= before })
}

func TestPreloadEvictAndPinning(t *testing.T) {
	ca, cb := chain(100, 3), chain(140, 3)
	ha, hb := hintFor(t, ca), hintFor(t, cb)
	cfg := testConfig()
	cfg.Pinned = []prover.CircuitID{ca.ID()}
	// Room for both circuits, but not for both plus a working set of b.
	cfg.HostBudget = ha.hostEntryBytes() + hb.hostEntryBytes() + hb.slot().bytes() - 1
	p := startPipeline(t, cfg)

	info, err := p.Preload(context.Background(), ca)
	if err != nil || info.AlreadyResident || info.HostLoad <= 0 || len(info.KeyLoads) != 1 {
		t.Fatalf("first preload: %+v %v", info, err)
	}
	if info, err = p.Preload(context.Background(), ca); err != nil || !info.AlreadyResident {
		t.Fatalf("second preload: %+v %v", info, err)
	}
	if _, err := p.Preload(context.Background(), cb); err != nil {
		t.Fatal(err)
	}
	// Proving b needs a, b and b's working set resident at once; a is pinned, so the job
	// can never fit and is refused (at submission: b's sizes are known from the preload).
	if j, err := p.Submit(context.Background(), JobSpec{Priority: Normal, Circuits: []prover.Circuit{cb}}); !errors.Is(err, ErrTooLarge) {
		if err == nil {
			_, err = j.Await(context.Background())
		}
		if !errors.Is(err, ErrTooLarge) {
			t.Fatalf("job needing the pinned circuit's room: %v", err)
		}
	}
	// a proves without loading anything.
	res := await(t, submit(t, p, JobSpec{Priority: Normal, Circuits: []prover.Circuit{chain(100, 4)}}))
	if res.Timings[0].HostLoad != 0 || res.Timings[0].KeyLoad != 0 {
		t.Fatalf("preloaded circuit was loaded again: %+v", res.Timings[0])
	}
	if ok, err := p.Evict(cb.ID()); !ok || err != nil {
		t.Fatalf("evict b: %v %v", ok, err)
	}
	if ok, _ := p.Evict(cb.ID()); ok {
		t.Fatal("evicting a circuit twice reported it resident")
	}
	waitFor(t, "b's memory released", func() bool {
		s := p.Status()
		return len(s.Host.Resident) == 1 && len(s.Devices[0].Resident) == 1 && s.Host.Resident[0].Circuit == ca.ID()
	})

	// Without the pin, the same budget proves b by evicting the idle, least recently
	// used a, and only a.
	cfg.Pinned = nil
	q := startPipeline(t, cfg)
	for _, c := range []prover.Circuit{ca, cb} {
		if _, err := q.Preload(context.Background(), c); err != nil {
			t.Fatal(err)
		}
	}
	await(t, submit(t, q, JobSpec{Priority: Normal, Circuits: []prover.Circuit{chain(140, 5)}}))
	s := q.Status()
	if s.Host.Evictions != 1 || len(s.Host.Resident) != 1 || s.Host.Resident[0].Circuit != cb.ID() {
		t.Fatalf("after proving b: %d evictions, resident %+v", s.Host.Evictions, s.Host.Resident)
	}
	if len(s.Devices[0].Resident) != 1 || s.Devices[0].Resident[0].Circuit != cb.ID() {
		t.Fatalf("a's proving key outlived its parameters: %+v", s.Devices[0].Resident)
	}
}

func TestTraceAndMetrics(t *testing.T) {
	reg := prometheus.NewRegistry()
	cfg := testConfig()
	p, err := New(cfg, Deps{Backends: []backend.Backend{newCPU(t)}, Params: srs.Dev{Cache: srstest.Cache(t)}, Registerer: reg})
	if err != nil {
		t.Fatal(err)
	}
	p.Start()
	defer p.Close()
	await(t, submit(t, p, JobSpec{Kind: "porep", Priority: Normal, Circuits: []prover.Circuit{chain(50, 3), chain(50, 4)}}))
	var buf bytes.Buffer
	if err := p.WriteTrace(&buf); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		TraceEvents []struct {
			Name string         `json:"name"`
			Ph   string         `json:"ph"`
			TID  int            `json:"tid"`
			Dur  float64        `json:"dur"`
			Cat  string         `json:"cat"`
			Args map[string]any `json:"args"`
		} `json:"traceEvents"`
	}
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	stages := map[string]int{}
	for _, e := range doc.TraceEvents {
		if e.Ph == "X" {
			stages[e.Name]++
			if e.Cat != "porep" || e.TID == 0 {
				t.Fatalf("event %+v", e)
			}
		}
	}
	for _, s := range []string{"synthesize", "prove", "verify"} {
		if stages[s] != 2 {
			t.Fatalf("trace has %d %q events, want 2: %v", stages[s], s, stages)
		}
	}
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, f := range families {
		names[f.GetName()] = true
	}
	for _, n := range []string{"snarkpipe_pipeline_jobs_total", "snarkpipe_pipeline_partitions_total", "snarkpipe_pipeline_stage_seconds",
		"snarkpipe_srs_loads_total", "snarkpipe_memory_used_bytes", "snarkpipe_memory_budget_bytes", "snarkpipe_pipeline_queued_partitions"} {
		if !names[n] {
			t.Errorf("metric %s missing", n)
		}
	}
	if v := counterValue(p.metrics.jobs.WithLabelValues("porep", "ok")); v != 1 {
		t.Fatalf("jobs ok = %v", v)
	}
	// A second pipeline on the same registry is refused instead of double-registering.
	if _, err := New(cfg, Deps{Backends: []backend.Backend{newCPU(t)}, Params: srs.Dev{Cache: srstest.Cache(t)}, Registerer: reg}); err == nil {
		t.Fatal("duplicate metrics registration accepted")
	}
}

func TestConfigValidate(t *testing.T) {
	if err := DefaultConfig().Validate(); err != nil {
		t.Fatal(err)
	}
	bad := DefaultConfig()
	bad.SynthesisWorkers, bad.HandoffDepth = -1, 0
	err := bad.Validate()
	if err == nil || !strings.Contains(err.Error(), "SynthesisWorkers") || !strings.Contains(err.Error(), "HandoffDepth") {
		t.Fatalf("Validate: %v", err)
	}
	if _, err := New(DefaultConfig(), Deps{}); err == nil {
		t.Fatal("New without backends accepted")
	}
}

func TestSubmitRefusesBadJobs(t *testing.T) {
	p := startPipeline(t, testConfig())
	for name, spec := range map[string]JobSpec{
		"empty":     {Priority: Normal},
		"priority":  {Priority: 7, Circuits: []prover.Circuit{chain(10, 3)}},
		"mixed ids": {Priority: Normal, Circuits: []prover.Circuit{chain(10, 3), chain(11, 3)}},
	} {
		if _, err := p.Submit(context.Background(), spec); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	p.Close()
	if _, err := p.Submit(context.Background(), JobSpec{Priority: Normal, Circuits: []prover.Circuit{chain(10, 3)}}); !errors.Is(err, ErrClosed) {
		t.Fatalf("submit after close: %v", err)
	}
}
