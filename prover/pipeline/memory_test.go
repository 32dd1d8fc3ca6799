package pipeline

import (
	"context"
	"errors"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/snarkpipe/snarkpipe/prover"
	"github.com/snarkpipe/snarkpipe/prover/r1cs"
)

// blocking is a chain circuit whose witness synthesis waits on gate (the probe and the
// recording, which see a nil gate, do not). Its id is its own, so nothing else shares it.
type blocking struct {
	inner   prover.Circuit
	gate    chan struct{}
	entered chan struct{}
}

func (b *blocking) ID() prover.CircuitID { return b.inner.ID() + "-blocking" }

func (b *blocking) Synthesize(cs r1cs.ConstraintSystem) error {
	if _, ok := cs.(*assignCS); ok && b.gate != nil {
		select {
		case b.entered <- struct{}{}:
		default:
		}
		<-b.gate
	}
	return b.inner.Synthesize(cs)
}

func TestCancellationReleasesReservationsAndBuffers(t *testing.T) {
	p := startPipeline(t, testConfig())
	gate := make(chan struct{})
	entered := make(chan struct{}, 1)
	var circuits []prover.Circuit
	for i := 0; i < 6; i++ {
		circuits = append(circuits, &blocking{inner: chain(200, uint64(3+i)), gate: gate, entered: entered})
	}
	ctx, cancel := context.WithCancel(context.Background())
	j, err := p.Submit(ctx, JobSpec{Priority: Normal, Circuits: circuits})
	if err != nil {
		t.Fatal(err)
	}
	<-entered // a partition holds host memory and a slot, others queue or wait
	if s := p.Status(); s.Host.Grants == 0 {
		t.Fatal("no partition was admitted before cancellation")
	}
	cancel()
	if _, err := j.Await(context.Background()); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled job returned %v", err)
	}
	close(gate) // let the synthesis in progress return; it must not hand off
	waitFor(t, "reservations released", func() bool { return idle(p) })
	s := p.Status()
	if s.Host.Used != s.Host.IdleSlotBytes+residentBytes(s.Host) {
		t.Fatalf("host holds %d bytes beyond idle slots (%d) and resident circuits", s.Host.Used, s.Host.IdleSlotBytes)
	}
	if s.Host.LiveSlots != s.Host.IdleSlots {
		t.Fatalf("%d slots allocated but only %d back in the pool", s.Host.LiveSlots, s.Host.IdleSlots)
	}
	// The released memory is usable: the same circuit proves now.
	again := []prover.Circuit{&blocking{inner: chain(200, 3)}}
	await(t, submit(t, p, JobSpec{Priority: Normal, Circuits: again}))
}

func residentBytes(m MemoryInfo) int64 {
	var n int64
	for _, r := range m.Resident {
		n += r.Bytes
	}
	return n
}

func TestOversizeJobIsRefused(t *testing.T) {
	c := chain(200, 3)
	h := hintFor(t, c)
	cfg := testConfig()
	cfg.HostBudget = h.hostEntryBytes() + h.slot().bytes() - 1
	p := startPipeline(t, cfg)
	j := submit(t, p, JobSpec{Priority: Normal, Circuits: []prover.Circuit{c}})
	if _, err := j.Await(context.Background()); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("first job (sizes unknown at submission): %v", err)
	}
	// Now the sizes are known: refused at submission, before any work.
	if _, err := p.Submit(context.Background(), JobSpec{Priority: Normal, Circuits: []prover.Circuit{c}}); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("second submission: %v", err)
	}
	if s := p.Status(); s.Host.Used != 0 || s.Host.PeakUsed > cfg.HostBudget {
		t.Fatalf("refused job left %d bytes reserved (peak %d)", s.Host.Used, s.Host.PeakUsed)
	}

	// The device budget is checked the same way.
	cfg = testConfig()
	cfg.DeviceBudget = h.ParamsBytes + h.deviceWorkingSet() - 1
	p2 := startPipeline(t, cfg)
	j = submit(t, p2, JobSpec{Priority: Normal, Circuits: []prover.Circuit{c}})
	if _, err := j.Await(context.Background()); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("job over the device budget: %v", err)
	}
}

// Under concurrent jobs of random sizes, circuits and priorities with a budget that holds
// only part of them, every job completes, evictions happen, and neither the reserved nor
// the actually allocated bytes ever exceed the budgets.
func TestBudgetNeverExceededUnderStress(t *testing.T) {
	sizes := []int{80, 140, 200}
	var hints []Hint
	for _, n := range sizes {
		hints = append(hints, hintFor(t, chain(n, 3)))
	}
	big := hints[len(hints)-1]
	cfg := testConfig()
	cfg.SynthesisWorkers = 3
	// Room for two resident circuits and two working sets: three circuits compete.
	cfg.HostBudget = 2*big.hostEntryBytes() + 2*big.slot().bytes()
	cfg.DeviceBudget = 2*big.ParamsBytes + 2*big.deviceWorkingSet()
	p := startPipeline(t, cfg)
	rng := rand.New(rand.NewPCG(1, 2))
	jobs := 30
	if testing.Short() { // CI has two cores shared by all packages
		jobs = 10
	}
	var wg sync.WaitGroup
	errs := make(chan error, jobs)
	for i := 0; i < jobs; i++ {
		n := sizes[rng.IntN(len(sizes))]
		parts := 1 + rng.IntN(3)
		prio := Priority(rng.IntN(4))
		var cs []prover.Circuit
		var outs []fr.Element
		for k := 0; k < parts; k++ {
			y0 := uint64(3 + rng.IntN(1000))
			cs = append(cs, chain(n, y0))
			outs = append(outs, chainOutput(n, y0))
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			j, err := p.Submit(context.Background(), JobSpec{Priority: prio, Circuits: cs})
			if err != nil {
				errs <- err
				return
			}
			res, err := j.Await(context.Background())
			if err != nil {
				errs <- err
				return
			}
			vk := devVK(t, cs[0])
			for k := range res.Proofs {
				if err := vk.Verify(&res.Proofs[k], []fr.Element{outs[k]}); err != nil {
					errs <- err
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	s := p.Status()
	for _, m := range append([]MemoryInfo{s.Host}, s.Devices...) {
		if m.PeakUsed > m.Capacity || m.PeakLive > m.Capacity {
			t.Fatalf("%s: peak reserved %d, peak allocated %d, budget %d", m.Name, m.PeakUsed, m.PeakLive, m.Capacity)
		}
		t.Logf("%s: budget %d, peak reserved %d, peak allocated %d, loads %d, evictions %d", m.Name, m.Capacity, m.PeakUsed, m.PeakLive, m.Loads, m.Evictions)
	}
	if s.Host.Evictions == 0 {
		t.Fatal("three circuits in a two-circuit budget were never evicted: the policy was not exercised")
	}
}
