package pipeline

import (
	"reflect"
	"testing"

	"github.com/snarkpipe/snarkpipe/prover/r1cs"
	"github.com/snarkpipe/snarkpipe/prover/r1cs/r1cstest"
)

// withinSlack reports whether a buffer of length n and capacity c keeps no more spare
// capacity than recordingSlack allows.
func withinSlack(n, c int) bool { return float64(c-n) <= recordingSlack*float64(n) }

// A recording made into over-sized buffers (here: one and a half times the probe's
// counts, as a hint from other sizes or a recorder's growth would leave) comes out of
// record with every buffer within the slack, the buffers that were over it exactly sized,
// and the same contents as a recorder's; the memory it holds is then within the slack
// of the hint's ShapeBytes, which the host reservation counts.
func TestRecordTrimsSpareCapacity(t *testing.T) {
	for _, c := range keyCircuits() {
		capacity := probeCapacity(t, c)
		for i := range capacity.MatrixNonZeros {
			capacity.MatrixNonZeros[i] += capacity.MatrixNonZeros[i]/2 + 1
		}
		_, untrimmed, err := recordInto(c, r1cs.NewRecorder(capacity))
		if err != nil {
			t.Fatal(err)
		}
		key, s, err := newCircuits(nil, openHints(""), "").record(c, capacity)
		if err != nil {
			t.Fatal(err)
		}
		fresh := freshRecording(t, c)
		if !reflect.DeepEqual(s, fresh) || s.Digest != fresh.Digest {
			t.Fatalf("%s: trimmed recording differs from a recorder's", c.ID())
		}
		for i, m := range []*r1cs.Matrix{&s.A, &s.B, &s.C} {
			was := []*r1cs.Matrix{&untrimmed.A, &untrimmed.B, &untrimmed.C}[i]
			if !withinSlack(len(m.Col), cap(m.Col)) || !withinSlack(len(m.Coeff), cap(m.Coeff)) {
				t.Errorf("%s matrix %d: %d terms kept capacity %d/%d", c.ID(), i, len(m.Col), cap(m.Col), cap(m.Coeff))
			}
			if !withinSlack(len(was.Col), cap(was.Col)) && (cap(m.Col) != len(m.Col) || cap(m.Coeff) != len(m.Coeff)) {
				t.Errorf("%s matrix %d: over the slack before (%d of %d), not exact after (%d)", c.ID(), i, len(was.Col), cap(was.Col), cap(m.Col))
			}
		}
		h := hintOf(key, s)
		if held := s.HeldBytes(); float64(held) > (1+recordingSlack)*float64(h.ShapeBytes) {
			t.Errorf("%s: recording holds %d bytes, hint counts %d", c.ID(), held, h.ShapeBytes)
		}
		if h != hintOf(key, fresh) {
			t.Errorf("%s: the trim changed the hint", c.ID())
		}
	}
}

// A recorder that grows from empty (no hint, no probe) over-sizes its buffers; record
// trims them too.
func TestRecordTrimsGrownBuffers(t *testing.T) {
	c := &r1cstest.Random{Seed: 1, Constraints: 3000, Inputs: 7, Unused: 40}
	_, grown, err := recordInto(c, r1cs.NewRecorder(r1cs.Capacity{}))
	if err != nil {
		t.Fatal(err)
	}
	if withinSlack(len(grown.A.Col), cap(grown.A.Col)) {
		t.Fatalf("A grew to exactly %d of %d: the test would pass vacuously", len(grown.A.Col), cap(grown.A.Col))
	}
	_, s, err := newCircuits(nil, openHints(""), "").record(c, r1cs.Capacity{})
	if err != nil {
		t.Fatal(err)
	}
	if cap(s.A.Col) != len(s.A.Col) || cap(s.A.Coeff) != len(s.A.Coeff) {
		t.Fatalf("A: %d terms kept capacity %d/%d", len(s.A.Col), cap(s.A.Col), cap(s.A.Coeff))
	}
}
