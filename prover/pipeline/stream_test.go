package pipeline

import (
	"context"
	"errors"
	"math/rand/v2"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/snarkpipe/snarkpipe/prover"
	"github.com/snarkpipe/snarkpipe/prover/backend"
	"github.com/snarkpipe/snarkpipe/prover/groth16"
	"github.com/snarkpipe/snarkpipe/prover/r1cs"
)

// streamDouble adds backend.StreamingShapeEvaluator to the resident double: it waits for
// half of aux, tells the test (halfSeen), then waits for the whole assignment and proves
// as ProveResident.
type streamDouble struct {
	*residentDouble
	streamed atomic.Int32 // ProveResidentStreamed calls
	halfSeen func()       // called once the first half of aux is final
}

var _ backend.StreamingShapeEvaluator = (*streamDouble)(nil)

func (d *streamDouble) ProveResidentStreamed(s backend.ResidentShape, inputs, aux []fr.Element, k backend.ResidentKey, ready backend.AuxProgress) (backend.ResidentResults, error) {
	d.streamed.Add(1)
	if err := ready.WaitAux(len(aux) / 2); err != nil {
		return backend.ResidentResults{}, err
	}
	d.halfSeen()
	if err := ready.WaitAll(); err != nil {
		return backend.ResidentResults{}, err
	}
	res, err := d.prove(s, inputs, aux, k)
	res.Timings.Chunks = 2
	return res, err
}

// halfwayChain is the squaring chain filled in order (prover.ProgressFiller): after the
// first half of aux it reports that prefix and waits (up to wait) for the device side to
// have seen it, which only a partition handed off before its fill can do; "fail" fails
// the fill there instead.
type halfwayChain struct {
	n, y0    uint64
	fail     bool
	wait     time.Duration
	seen     chan struct{} // closed by the device side
	overlaps *atomic.Int32 // fills that saw the device side before they ended
}

func (c *halfwayChain) ID() prover.CircuitID { return chain(int(c.n), c.y0).ID() }

func (c *halfwayChain) Synthesize(cs r1cs.ConstraintSystem) error {
	return chain(int(c.n), c.y0).Synthesize(cs)
}

func (c *halfwayChain) FillWitness(inputs, aux []fr.Element) error {
	return c.FillWitnessProgress(inputs, aux, nil)
}

func (c *halfwayChain) FillWitnessProgress(inputs, aux []fr.Element, done func(n int)) error {
	if len(inputs) != 2 || len(aux) != int(c.n)+1 {
		return errors.New("unexpected buffer sizes")
	}
	aux[0].SetUint64(max(c.y0, 3))
	half := len(aux) / 2
	for i := 1; i < half; i++ {
		aux[i].Square(&aux[i-1])
	}
	if done != nil {
		done(half)
	}
	if c.fail {
		return errors.New("vanilla proof rejected halfway")
	}
	select {
	case <-c.seen:
		c.overlaps.Add(1)
	case <-time.After(c.wait):
	}
	for i := max(half, 1); i < len(aux); i++ {
		aux[i].Square(&aux[i-1])
	}
	inputs[1] = aux[c.n]
	if done != nil {
		done(len(aux))
	}
	return nil
}

// TestStreamedPartitions: partitions of a circuit that fills in order reach a streaming
// device before their fill ends (the device sees half of aux while the fill waits for
// it), their proofs verify and equal those of whole-witness hand-offs for the same
// (r, s), and the timings carry the fill; a fill that fails halfway fails its job with
// the fill's error and releases its memory; WholeWitness turns streaming off.
func TestStreamedPartitions(t *testing.T) {
	rs, err := groth16.SampleRandomness(rand.NewChaCha8([32]byte{61}))
	if err != nil {
		t.Fatal(err)
	}
	run := func(whole bool, fail bool, wait time.Duration) (Result, error, int32, int32) {
		d := &streamDouble{residentDouble: newResidentDouble(t)}
		seen := make(chan struct{})
		var once sync.Once
		d.halfSeen = func() { once.Do(func() { close(seen) }) }
		cfg := testConfig()
		cfg.WholeWitness = whole
		p := newPipelineOn(t, cfg, Deps{Backends: []backend.Backend{d}, Keys: BenchKeys{}}, &rs)
		defer p.Close()
		var overlaps atomic.Int32
		c := &halfwayChain{n: 64, y0: 7, fail: fail, wait: wait, seen: seen, overlaps: &overlaps}
		j := submit(t, p, JobSpec{Kind: "test", Priority: Normal, Circuits: []prover.Circuit{c}})
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		res, err := j.Await(ctx)
		waitFor(t, "idle pipeline", func() bool { return idle(p) })
		if s := p.Status(); s.Host.IdleSlots != 1 || s.Host.Grants != 0 {
			t.Errorf("host memory after the job: %d idle slots, %d grants; want the partition's slot back in the pool", s.Host.IdleSlots, s.Host.Grants)
		}
		return res, err, d.streamed.Load(), overlaps.Load()
	}

	streamed, err, calls, overlaps := run(false, false, 30*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if calls != 1 || overlaps != 1 {
		t.Fatalf("streamed: %d streamed proofs, %d fills that saw the device before they ended; want 1 and 1", calls, overlaps)
	}
	tm := streamed.Timings[0]
	if tm.Witness <= 0 || tm.Resident.Chunks != 2 {
		t.Errorf("streamed timings: witness %v, chunks %d", tm.Witness, tm.Resident.Chunks)
	}

	whole, err, calls, overlaps := run(true, false, 50*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	if calls != 0 || overlaps != 0 {
		t.Fatalf("WholeWitness: %d streamed proofs, %d overlaps; want none", calls, overlaps)
	}
	if streamed.Proofs[0].Bytes() != whole.Proofs[0].Bytes() {
		t.Fatal("the streamed proof differs from the whole-witness proof for the same (r, s)")
	}

	_, err, calls, _ = run(false, true, 0)
	if err == nil || !strings.Contains(err.Error(), "vanilla proof rejected halfway") || calls != 1 {
		t.Fatalf("failed fill: error %v after %d streamed proofs", err, calls)
	}
}
