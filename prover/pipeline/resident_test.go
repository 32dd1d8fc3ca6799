package pipeline

import (
	"context"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/snarkpipe/snarkpipe/prover"
	"github.com/snarkpipe/snarkpipe/prover/backend"
	"github.com/snarkpipe/snarkpipe/prover/groth16"
	"github.com/snarkpipe/snarkpipe/prover/r1cs"
	"github.com/snarkpipe/snarkpipe/prover/srs"
	"github.com/snarkpipe/snarkpipe/prover/srs/srstest"
)

// newPipelineOn builds and starts a pipeline on backends with dev parameters (or keys),
// every proof blinded with rs when it is not nil. The caller closes it.
func newPipelineOn(t testing.TB, cfg Config, deps Deps, rs *groth16.Randomness) *Pipeline {
	t.Helper()
	if deps.Params == nil && deps.Keys == nil {
		deps.Params = srs.Dev{Cache: srstest.Cache(t)}
	}
	p, err := New(cfg, deps)
	if err != nil {
		t.Fatal(err)
	}
	p.fixedRandomness = rs
	p.Start()
	return p
}

func bitsJob(xs ...uint64) JobSpec {
	spec := JobSpec{Kind: "test", Priority: Normal}
	for _, x := range xs {
		spec.Circuits = append(spec.Circuits, &bitsCircuit{X: x, Squares: 5})
	}
	return spec
}

func bitsOutput(x uint64) []fr.Element {
	var e fr.Element
	e.SetUint64(x)
	return []fr.Element{e}
}

// TestResidentPathMatchesHostPath proves the same partitions through the pre-compiled
// path (test double, with and without a packed witness) and through today's host path
// (CPU backend) with the same (r, s): the proof bytes are equal and verify. The resident
// slots hold z (and the bitmaps) only, never row vectors; every slot is pinned once and
// every upload comes from pinned memory; closing the pipeline unpins every slot.
func TestResidentPathMatchesHostPath(t *testing.T) {
	xs := []uint64{0, 1, 0xdeadbeefcafe, ^uint64(0), 1 << 63, 12345}
	rs, err := groth16.SampleRandomness(rand.NewChaCha8([32]byte{7}))
	if err != nil {
		t.Fatal(err)
	}
	host := newPipelineOn(t, testConfig(), Deps{Backends: []backend.Backend{newCPU(t)}}, &rs)
	want := await(t, submit(t, host, bitsJob(xs...)))
	host.Close()
	vk := devVK(t, bitsJob(0).Circuits[0])
	h := hintFor(t, bitsJob(0).Circuits[0])

	for _, tc := range []struct {
		name   string
		packed bool
	}{{"plain", false}, {"packed", true}} {
		t.Run(tc.name, func(t *testing.T) {
			d := newResidentDouble(t)
			var be backend.Backend = d
			if tc.packed {
				be = packedDouble{d}
			}
			p := newPipelineOn(t, testConfig(), Deps{Backends: []backend.Backend{be}}, &rs)
			if p.mode.hostEval || p.mode.pack != tc.packed {
				t.Fatalf("mode %+v for a resident backend (packed %v)", p.mode, tc.packed)
			}
			// Two jobs: the second reuses pooled slots, which must not be pinned again.
			first := await(t, submit(t, p, bitsJob(xs[:3]...)))
			second := await(t, submit(t, p, bitsJob(xs[3:]...)))
			got := append(first.Proofs, second.Proofs...)
			timings := append(first.Timings, second.Timings...)
			for i, x := range xs {
				if got[i].Bytes() != want.Proofs[i].Bytes() {
					t.Errorf("partition %d: resident proof differs from the host path's with the same (r, s)", i)
				}
				if err := vk.Verify(&got[i], bitsOutput(x)); err != nil {
					t.Errorf("partition %d: %v", i, err)
				}
				tm := timings[i]
				if tm.Eval != 0 || tm.Resident.Total <= 0 || tm.Prover.Total < tm.Resident.Total || tm.Prove <= 0 {
					t.Errorf("partition %d timings: host eval %v, resident %+v, prover %+v", i, tm.Eval, tm.Resident, tm.Prover)
				}
			}
			_, _, unpinned, loaded, _, plain, packed := d.counts()
			if plain+packed != len(xs) || (packed == len(xs)) != tc.packed || loaded != 1 {
				t.Fatalf("double saw %d plain and %d packed proofs, %d shape loads", plain, packed, loaded)
			}
			if unpinned != 0 {
				t.Fatalf("%d proofs uploaded from memory that was not pinned", unpinned)
			}
			if r := d.reservations(); r != loaded {
				t.Fatalf("%d proof-buffer reservations for %d shape loads, want one per load", r, loaded)
			}

			waitFor(t, "idle pipeline", func() bool { return idle(p) })
			shape := p.hostSlot(h)
			wantWords := 0
			if tc.packed {
				wantWords = bitmapWords(h.Counts.NumAux)
			}
			if shape.m != 0 || shape.words != wantWords || 4*shape.bytes() > h.slot().bytes()+4*int64(wantWords)*16 {
				t.Fatalf("resident slot %+v (%d bytes) vs host-path slot %d bytes", shape, shape.bytes(), h.slot().bytes())
			}
			p.host.mu.Lock()
			var slots int
			for sh, l := range p.host.idle {
				for _, s := range l {
					slots++
					if sh != shape || len(s.a)+len(s.b)+len(s.c) != 0 || len(s.field) != wantWords {
						t.Errorf("pooled slot %+v has %d/%d/%d row values and %d bitmap words", sh, len(s.a), len(s.b), len(s.c), len(s.field))
					}
				}
			}
			p.host.mu.Unlock()
			s := p.Status()
			pins, _, _, _, _, _, _ := d.counts()
			if slots == 0 || pins != s.Host.SlotAllocs || s.Host.IdleSlotBytes != int64(slots)*shape.bytes() {
				t.Fatalf("%d pins for %d slot allocations (%d pooled, %d bytes)", pins, s.Host.SlotAllocs, slots, s.Host.IdleSlotBytes)
			}
			p.Close()
			pins, unpins, _, _, closed, _, _ := d.counts()
			if unpins != pins || closed != 1 {
				t.Fatalf("after Close: %d pins, %d unpins, %d of 1 resident shapes closed", pins, unpins, closed)
			}
		})
	}
}

// TestResidentShapeEvictedWithKey: on the pre-compiled path the device entry holds the
// key and the resident shape (its bytes counted), eviction closes both, and the next job
// loads both again. With Keys (BenchKeys), the host holds only the recording.
func TestResidentShapeEvictedWithKey(t *testing.T) {
	d := newResidentDouble(t)
	p := newPipelineOn(t, testConfig(), Deps{Backends: []backend.Backend{packedDouble{d}}, Keys: BenchKeys{}}, nil)
	defer p.Close()
	c := bitsJob(0).Circuits[0]
	h := hintFor(t, c)
	res := await(t, submit(t, p, bitsJob(99, 100)))
	pk, err := BenchKeys{}.ProvingKey(context.Background(), c.ID(), recordShape(t, c), newCPU(t))
	if err != nil {
		t.Fatal(err)
	}
	defer pk.Close()
	for i, x := range []uint64{99, 100} {
		if err := pk.Params.VK.Verify(&res.Proofs[i], bitsOutput(x)); err != nil {
			t.Fatalf("proof %d: %v", i, err)
		}
	}
	waitFor(t, "idle pipeline", func() bool { return idle(p) })
	s := p.Status()
	if len(s.Devices[0].Resident) != 1 || s.Devices[0].Resident[0].Bytes != p.deviceEntryBytes(p.devices[0], h) ||
		p.deviceEntryBytes(p.devices[0], h) <= h.ParamsBytes+h.ShapeBytes+proofPoolBytes(h.Counts.Sizes) {
		t.Fatalf("device residency %+v: want key and shape, %d bytes", s.Devices[0].Resident, p.deviceEntryBytes(p.devices[0], h))
	}
	if len(s.Host.Resident) != 1 || s.Host.Resident[0].Bytes != h.ShapeBytes {
		t.Fatalf("host residency %+v: want the recording only", s.Host.Resident)
	}
	if ok, err := p.Evict(c.ID()); !ok || err != nil {
		t.Fatalf("Evict: %v %v", ok, err)
	}
	waitFor(t, "resident shape closed", func() bool { _, _, _, _, closed, _, _ := d.counts(); return closed == 1 })
	waitFor(t, "memory released", func() bool { s := p.Status(); return s.Devices[0].Used == 0 && s.Host.Used == s.Host.IdleSlotBytes })
	await(t, submit(t, p, bitsJob(7)))
	if _, _, _, loaded, closed, _, _ := d.counts(); loaded != 2 || closed != 1 {
		t.Fatalf("after eviction and a new job: %d shape loads, %d closes", loaded, closed)
	}
}

// TestMixedDevicesEvaluateOnHost: with one device lacking the pre-compiled path, every
// slot carries host-evaluated rows (either device may take a partition); the resident
// device proves from z alone and the CPU one from the rows; all proofs verify.
func TestMixedDevicesEvaluateOnHost(t *testing.T) {
	d := newResidentDouble(t)
	cfg := testConfig()
	cfg.WorkersPerDevice = 1
	p := newPipelineOn(t, cfg, Deps{Backends: []backend.Backend{newCPU(t), packedDouble{d}}}, nil)
	defer p.Close()
	if !p.mode.hostEval || p.mode.pack {
		t.Fatalf("mode %+v with a CPU device", p.mode)
	}
	var xs []uint64
	for i := range 8 {
		xs = append(xs, uint64(i)*0x9e3779b97f4a7c15)
	}
	if _, err := p.Preload(context.Background(), bitsJob(0).Circuits[0]); err != nil { // keys on both devices
		t.Fatal(err)
	}
	res := await(t, submit(t, p, bitsJob(xs...)))
	vk := devVK(t, bitsJob(0).Circuits[0])
	for i, x := range xs {
		if err := vk.Verify(&res.Proofs[i], bitsOutput(x)); err != nil {
			t.Fatalf("proof %d (%s): %v", i, res.Timings[i].Worker, err)
		}
		if res.Timings[i].Eval <= 0 {
			t.Fatalf("proof %d: no host evaluation with a CPU device present", i)
		}
	}
	if _, _, _, _, _, _, packed := d.counts(); packed != 0 {
		t.Fatalf("%d packed proofs in host-evaluation mode", packed)
	}
}

// TestPackInPlaceMatchesPackAux: the in-place packing gives backend.PackAux's result
// (same bitmaps, same values in order) for every length around word and task boundaries
// and any task count, and leaves the values at the front of the vector.
func TestPackInPlaceMatchesPackAux(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	big := 3*packMinWordsPerTask*64 + 77 // several tasks, a ragged last word
	for _, n := range []int{0, 1, 63, 64, 65, 1000, big} {
		for _, tasks := range []int{1, 3, 8} {
			aux := make([]fr.Element, n)
			for i := range aux {
				switch rng.IntN(4) {
				case 0:
				case 1:
					aux[i].SetOne()
				default:
					aux[i].SetUint64(rng.Uint64() | 2)
				}
			}
			want := backend.PackAux(aux)
			field, ones := make([]uint64, bitmapWords(n)), make([]uint64, bitmapWords(n))
			for i := range field { // stale bits from an earlier use of the slot
				field[i], ones[i] = ^uint64(0), ^uint64(0)
			}
			got := packInPlace(aux, field, ones, tasks)
			if err := got.Validate(); err != nil {
				t.Fatalf("n %d tasks %d: %v", n, tasks, err)
			}
			if got.N != n || !slices.Equal(got.Field, want.Field) || !slices.Equal(got.Ones, want.Ones) || len(got.Values) != len(want.Values) {
				t.Fatalf("n %d tasks %d: packed differently from PackAux", n, tasks)
			}
			for i := range want.Values {
				if !got.Values[i].Equal(&want.Values[i]) {
					t.Fatalf("n %d tasks %d: value %d differs", n, tasks, i)
				}
			}
			if len(got.Values) > 0 && &got.Values[0] != &aux[0] {
				t.Fatalf("values not compacted in place")
			}
		}
	}
}

var _ prover.Circuit = (*bitsCircuit)(nil)

// TestPinFailureIsNotFatal: a backend that cannot pin host memory still proves (from
// pageable memory); each slot is tried once, not on every use.
func TestPinFailureIsNotFatal(t *testing.T) {
	d := newResidentDouble(t)
	d.failPins = true
	p := newPipelineOn(t, testConfig(), Deps{Backends: []backend.Backend{packedDouble{d}}}, nil)
	defer p.Close()
	vk := devVK(t, bitsJob(0).Circuits[0])
	for round := range 3 {
		xs := []uint64{uint64(round), uint64(round) + 1<<40}
		res := await(t, submit(t, p, bitsJob(xs...)))
		for i, x := range xs {
			if err := vk.Verify(&res.Proofs[i], bitsOutput(x)); err != nil {
				t.Fatalf("round %d proof %d: %v", round, i, err)
			}
		}
	}
	d.mu.Lock()
	attempts, unpinned := d.pinAttempts, d.unpinnedUpload
	d.mu.Unlock()
	if allocs := p.Status().Host.SlotAllocs; attempts != allocs || unpinned != 6 {
		t.Fatalf("%d pin attempts for %d slots, %d of 6 uploads unpinned", attempts, allocs, unpinned)
	}
}

// wrongKeys is a KeySource that hands out the benchmark key of another circuit.
type wrongKeys struct{ other prover.Circuit }

func (w wrongKeys) ProvingKey(ctx context.Context, _ prover.CircuitID, _ *r1cs.Shape, be backend.Backend) (*groth16.ProvingKey, error) {
	rec := r1cs.NewRecorder(r1cs.Capacity{})
	if err := w.other.Synthesize(rec); err != nil {
		return nil, err
	}
	return BenchKeys{}.ProvingKey(ctx, w.other.ID(), rec.Finish(), be)
}

// TestKeySourceMismatchRefused: a key that does not fit the recording fails the job with
// an error naming the counts, before any proof, and the pipeline stays usable.
func TestKeySourceMismatchRefused(t *testing.T) {
	d := newResidentDouble(t)
	p := newPipelineOn(t, testConfig(), Deps{Backends: []backend.Backend{packedDouble{d}}, Keys: wrongKeys{other: chain(8, 3)}}, nil)
	defer p.Close()
	j := submit(t, p, bitsJob(1))
	if _, err := j.Await(context.Background()); err == nil || !strings.Contains(err.Error(), "key source gave") {
		t.Fatalf("job with a mismatched key: %v", err)
	}
	if _, _, _, loaded, _, plain, packed := d.counts(); plain+packed != 0 || loaded != 0 {
		t.Fatalf("%d proofs and %d shape loads with a mismatched key", plain+packed, loaded)
	}
	waitFor(t, "idle pipeline", func() bool { return idle(p) })
	if s := p.Status(); len(s.Devices[0].Resident) != 0 || s.Devices[0].Used != 0 {
		t.Fatalf("device after a failed key load: %+v", s.Devices[0])
	}
}

// TestPinKeysPinsHostParams: with PinKeys the host copy of a circuit's proving key is
// page-locked through the backend once per host load (one pin per non-empty point vector,
// besides the slot's), and unpinned when the circuit leaves the host; without it only
// slots are pinned.
func TestPinKeysPinsHostParams(t *testing.T) {
	c := bitsJob(0).Circuits[0]
	params, err := srs.Dev{Cache: srstest.Cache(t)}.Params(context.Background(), c.ID(), recordShape(t, c))
	if err != nil {
		t.Fatal(err)
	}
	vectors := 0
	for _, n := range []int{len(params.H), len(params.L), len(params.A), len(params.BG1), len(params.BG2)} {
		if n > 0 {
			vectors++
		}
	}
	params.Close()
	for _, pinKeys := range []bool{false, true} {
		d := newResidentDouble(t)
		cfg := testConfig()
		cfg.SynthesisWorkers, cfg.CriticalWorkers, cfg.PinKeys = 1, 0, pinKeys
		p := newPipelineOn(t, cfg, Deps{Backends: []backend.Backend{packedDouble{d}}}, nil)
		await(t, submit(t, p, bitsJob(5)))
		pins, _, _, _, _, _, _ := d.counts()
		want := 1 // the slot
		if pinKeys {
			want += vectors
		}
		if pins != want {
			t.Fatalf("pin_keys %v: %d pins, want %d (one slot, %d key vectors)", pinKeys, pins, want, vectors)
		}
		if ok, err := p.Evict(c.ID()); !ok || err != nil {
			t.Fatalf("Evict: %v %v", ok, err)
		}
		if pinKeys {
			waitFor(t, "key vectors unpinned", func() bool { _, unpins, _, _, _, _, _ := d.counts(); return unpins >= vectors })
		}
		p.Close()
		if pins, unpins, _, _, _, _, _ := d.counts(); pins != unpins {
			t.Fatalf("pin_keys %v: %d pins, %d unpins after Close", pinKeys, pins, unpins)
		}
	}
}
