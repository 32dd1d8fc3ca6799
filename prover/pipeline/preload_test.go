package pipeline

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/snarkpipe/snarkpipe/prover"
	"github.com/snarkpipe/snarkpipe/prover/backend"
	"github.com/snarkpipe/snarkpipe/prover/groth16"
	"github.com/snarkpipe/snarkpipe/prover/r1cs"
)

// meetingKeys is BenchKeys whose calls wait, up to a bound, until want of them are in
// progress at once; met closes when they are (calls one after the other never meet).
type meetingKeys struct {
	want   int
	mu     sync.Mutex
	inside int
	met    chan struct{}
}

func (k *meetingKeys) ProvingKey(ctx context.Context, id prover.CircuitID, shape *r1cs.Shape, be backend.Backend) (*groth16.ProvingKey, error) {
	k.mu.Lock()
	k.inside++
	if k.inside == k.want {
		close(k.met)
	}
	k.mu.Unlock()
	defer func() {
		k.mu.Lock()
		k.inside--
		k.mu.Unlock()
	}()
	select {
	case <-k.met:
	case <-time.After(10 * time.Second):
	}
	return BenchKeys{}.ProvingKey(ctx, id, shape, be)
}

// TestPreloadLoadsDevicesAtOnce: Preload makes a circuit's keys on every device at the
// same time, not one device after the other, and reports each device's load.
func TestPreloadLoadsDevicesAtOnce(t *testing.T) {
	keys := &meetingKeys{want: 2, met: make(chan struct{})}
	devs := []backend.Backend{packedDouble{newResidentDouble(t)}, packedDouble{newResidentDouble(t)}}
	p := newPipelineOn(t, testConfig(), Deps{Backends: devs, Keys: keys}, nil)
	defer p.Close()
	info, err := p.Preload(context.Background(), bitsJob(0).Circuits[0])
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-keys.met:
	default:
		t.Fatal("the two devices' keys were not made at the same time")
	}
	if len(info.KeyLoads) != 2 || info.KeyLoads[0] <= 0 || info.KeyLoads[1] <= 0 || info.AlreadyResident {
		t.Fatalf("preload info %+v: want a key load on each of 2 devices", info)
	}
	for i, d := range p.Status().Devices {
		if len(d.Resident) != 1 {
			t.Fatalf("device %d holds %d circuits after the preload, want 1", i, len(d.Resident))
		}
	}
}

// TestPreloadSlotsPinnedBeforeTheFirstProof: with PreloadSlots, Preload fills the host
// pool with one page-locked slot per synthesis worker, hand-off place and device worker,
// so the first job allocates and page-locks nothing; a second preload adds none; a host
// budget with room for fewer gets fewer, and nothing is evicted for them.
func TestPreloadSlotsPinnedBeforeTheFirstProof(t *testing.T) {
	c := bitsJob(0).Circuits[0]
	h := hintFor(t, c)
	cfg := testConfig()
	cfg.PreloadSlots = true
	cfg.SynthesisWorkers, cfg.HandoffDepth, cfg.WorkersPerDevice = 2, 1, 2
	const want = 2 + 1 + 2
	d := newResidentDouble(t)
	p := newPipelineOn(t, cfg, Deps{Backends: []backend.Backend{packedDouble{d}}}, nil)
	defer p.Close()
	info, err := p.Preload(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	shape := p.hostSlot(h)
	check := func(when string, slots int) {
		t.Helper()
		s := p.Status()
		pins, _, unpinned, _, _, _, _ := d.counts()
		if s.Host.SlotAllocs != slots || pins != slots || unpinned != 0 {
			t.Fatalf("%s: %d slot allocations, %d pins, %d unpinned uploads; want %d, %d, 0", when, s.Host.SlotAllocs, pins, unpinned, slots, slots)
		}
	}
	if info.Slots != want {
		t.Fatalf("preload made %d slots, want %d", info.Slots, want)
	}
	check("after the preload", want)
	if s := p.Status(); s.Host.IdleSlotBytes != want*shape.bytes() {
		t.Fatalf("%d idle slot bytes, want %d", s.Host.IdleSlotBytes, want*shape.bytes())
	}
	again, err := p.Preload(context.Background(), c)
	if err != nil || again.Slots != 0 {
		t.Fatalf("second preload: %d slots, %v; want none", again.Slots, err)
	}
	res := await(t, submit(t, p, bitsJob(1, 2, 3, 4)))
	vk := devVK(t, c)
	for i, x := range []uint64{1, 2, 3, 4} {
		if err := vk.Verify(&res.Proofs[i], bitsOutput(x)); err != nil {
			t.Errorf("partition %d: %v", i, err)
		}
	}
	waitFor(t, "idle pipeline", func() bool { return idle(p) })
	check("after the first job", want)

	// Room for the circuit and two and a half slots: two are made.
	cfg.HostBudget = p.hostEntryBytes(h) + 5*shape.bytes()/2
	small := newPipelineOn(t, cfg, Deps{Backends: []backend.Backend{packedDouble{newResidentDouble(t)}}}, nil)
	defer small.Close()
	info, err = small.Preload(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	if s := small.Status(); info.Slots != 2 || s.Host.SlotAllocs != 2 || s.Host.Evictions != 0 {
		t.Fatalf("tight budget: %d slots made, %d allocations, %d evictions; want 2, 2, 0", info.Slots, s.Host.SlotAllocs, s.Host.Evictions)
	}
}
