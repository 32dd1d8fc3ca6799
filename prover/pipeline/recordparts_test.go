package pipeline

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/snarkpipe/snarkpipe/prover"
	"github.com/snarkpipe/snarkpipe/prover/r1cs"
)

// partsCircuit is n parts of one input and aux aux variables each, with rows over the
// part's variables, ONE and part-dependent coefficients. fail, panicAt and grow make part
// at (>= 0) return an error, panic, or allocate one aux variable too many.
type partsCircuit struct {
	n, aux                int
	fail, panicAt, growAt int
}

func (c *partsCircuit) ID() prover.CircuitID { return "parts-test" }

func (c *partsCircuit) Synthesize(cs r1cs.ConstraintSystem) error {
	for i := range c.n {
		if err := c.SynthesizePart(cs, i); err != nil {
			return err
		}
	}
	return nil
}

func (c *partsCircuit) Parts() (r1cs.PartsLayout, error) {
	return r1cs.PartsLayout{N: c.n, InputsPer: 1, AuxPer: c.aux}, nil
}

func (c *partsCircuit) SynthesizeHead(r1cs.ConstraintSystem) error { return nil }

var errPartFailed = errors.New("part failed")

func (c *partsCircuit) SynthesizePart(cs r1cs.ConstraintSystem, i int) error {
	switch i {
	case c.fail:
		return errPartFailed
	case c.panicAt:
		panic("part panicked")
	}
	in := cs.AllocInput(fr.Element{})
	vars := []r1cs.Variable{in}
	n := c.aux
	if i == c.growAt {
		n++
	}
	for range n {
		vars = append(vars, cs.Alloc(fr.Element{}))
	}
	for k := 1; k < len(vars); k++ {
		var a, b, cc r1cs.LC
		var w fr.Element
		w.SetUint64(uint64(1 + (i*7+k)%13))
		a.AddTerm(vars[k], &w)
		a.Add(r1cs.One)
		b.Add(vars[k-1])
		cc.AddTerm(vars[(k*5)%len(vars)], &w)
		cs.Enforce("row", &a, &b, &cc)
	}
	return nil
}

func TestRecordPartsEqualsRecordInto(t *testing.T) {
	c := &partsCircuit{n: 50, aux: 37, fail: -1, panicAt: -1, growAt: -1}
	wantKey, want, err := recordInto(c, r1cs.NewRecorder(r1cs.Capacity{}))
	if err != nil {
		t.Fatal(err)
	}
	for _, workers := range []int{1, 3, 8} {
		key, got, err := recordParts(c, c, r1cs.Capacity{Constraints: 2000, NonZeros: 9000}, workers)
		if err != nil {
			t.Fatal(err)
		}
		if key != wantKey || got.Digest != want.Digest || got.Counts() != want.Counts() {
			t.Errorf("%d workers: key or recording differs from one synthesis", workers)
		}
	}
}

func TestRecordPartsFailures(t *testing.T) {
	for _, tc := range []struct {
		name string
		c    *partsCircuit
		want error
	}{
		{"error", &partsCircuit{n: 40, aux: 5, fail: 17, panicAt: -1, growAt: -1}, errPartFailed},
		{"panic", &partsCircuit{n: 40, aux: 5, fail: -1, panicAt: 3, growAt: -1}, ErrCircuitPanicked},
		{"wrong size", &partsCircuit{n: 40, aux: 5, fail: -1, panicAt: -1, growAt: 30}, ErrCircuitChanged},
	} {
		for _, workers := range []int{1, 4} {
			_, s, err := recordParts(tc.c, tc.c, r1cs.Capacity{}, workers)
			if !errors.Is(err, tc.want) || s != nil {
				t.Errorf("%s, %d workers: got %v (shape %v), want %v", tc.name, workers, err, s != nil, tc.want)
			}
		}
	}
}

// partsCapacity sizes a first start's recording exactly from part 0, and such a first
// start (no file of the id can exist) records once: the whole circuit is synthesized only
// by the key's synthesis beside the parts, not by a probe before them.
func TestPartedFirstStartRecordsOnce(t *testing.T) {
	c := &partsCircuit{n: 30, aux: 11, fail: -1, panicAt: -1, growAt: -1}
	got, err := partsCapacity(c.ID(), c)
	if err != nil {
		t.Fatal(err)
	}
	if want := probeCapacity(t, c); got != want {
		t.Errorf("capacity from part 0 %+v, from the whole %+v", got, want)
	}
	counted := &countingParts{partsCircuit: c}
	cs := newCircuits(nil, openHints(""), "")
	h, err := cs.prepare(context.Background(), counted)
	if err != nil {
		t.Fatal(err)
	}
	if h.Key != probeKey(t, c).String() {
		t.Errorf("first start key %s, probe key %s", h.Key, probeKey(t, c))
	}
	if n := counted.whole.Load(); n != 1 {
		t.Errorf("first start synthesized the whole circuit %d times, want 1 (the key's)", n)
	}
	if _, held, err := cs.shapeFor(counted); err != nil || held.shape == nil || held.shape.Digest != freshRecording(t, c).Digest {
		t.Errorf("first start recording: %v (held %v)", err, held.shape != nil)
	}
}

// countingParts counts syntheses of the whole circuit.
type countingParts struct {
	*partsCircuit
	whole atomic.Int32
}

func (c *countingParts) Synthesize(cs r1cs.ConstraintSystem) error {
	c.whole.Add(1)
	return c.partsCircuit.Synthesize(cs)
}

// A circuit whose parts do not fit the layout it declares is recorded by one synthesis
// instead: the recording does not depend on the layout being right.
func TestRecordFallsBackToOneSynthesis(t *testing.T) {
	c := &partsCircuit{n: 12, aux: 4, fail: -1, panicAt: -1, growAt: 5}
	wantKey, want, err := recordInto(c, r1cs.NewRecorder(r1cs.Capacity{}))
	if err != nil {
		t.Fatal(err)
	}
	cs := newCircuits(nil, openHints(""), "")
	key, got, err := cs.record(c, r1cs.Capacity{})
	if err != nil {
		t.Fatal(err)
	}
	if key != wantKey || got.Digest != want.Digest {
		t.Error("fallback recording differs from one synthesis")
	}
}
