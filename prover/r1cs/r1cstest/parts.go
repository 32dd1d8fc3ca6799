package r1cstest

import (
	"runtime"
	"testing"

	"github.com/snarkpipe/snarkpipe/prover/r1cs"
)

// PartedCircuit is a circuit with its whole synthesis and its parts (prover.PartedCircuit
// and Synthesize): what the helpers below compare.
type PartedCircuit interface {
	Synthesize(cs r1cs.ConstraintSystem) error
	Parts() (r1cs.PartsLayout, error)
	SynthesizeHead(cs r1cs.ConstraintSystem) error
	SynthesizePart(cs r1cs.ConstraintSystem, i int) error
}

// AssertPartsEqualRecording records c whole and in parts (r1cs.RecordParts on 3 workers,
// as the pipeline does) and requires the same recording; a part past the last must fail.
func AssertPartsEqualRecording(t testing.TB, c PartedCircuit) {
	t.Helper()
	whole := r1cs.NewRecorder(r1cs.Capacity{})
	if err := c.Synthesize(whole); err != nil {
		t.Fatal(err)
	}
	want := whole.Finish()
	l, err := c.Parts()
	if err != nil {
		t.Fatal(err)
	}
	if 1+l.HeadInputs+l.N*l.InputsPer != want.NumInputs || l.HeadAux+l.N*l.AuxPer != want.NumAux {
		t.Fatalf("Parts %+v, the recording has %d inputs and %d aux", l, want.NumInputs, want.NumAux)
	}
	got, err := r1cs.RecordParts(r1cs.Capacity{}, l, 3, c.SynthesizeHead, c.SynthesizePart)
	if err != nil {
		t.Fatal(err)
	}
	if got.Digest != want.Digest || got.Counts() != want.Counts() {
		t.Fatalf("recording in parts differs: counts %+v, want %+v", got.Counts(), want.Counts())
	}
	if err := c.SynthesizePart(r1cs.NewCounter(), l.N); err == nil {
		t.Error("part past the last accepted")
	}
}

// BenchmarkWholeAndParts runs two sub-benchmarks on c: "whole" records it with one
// Recorder, "parts" with r1cs.RecordParts on GOMAXPROCS workers (the pipeline's recording
// of a PartedCircuit, without its concurrent key synthesis). Both recorders are pre-sized
// from a first recording, as the pipeline's are from its probe, and both check the digest.
func BenchmarkWholeAndParts(b *testing.B, c PartedCircuit) {
	first := r1cs.NewRecorder(r1cs.Capacity{})
	if err := c.Synthesize(first); err != nil {
		b.Fatal(err)
	}
	s := first.Finish()
	capacity := r1cs.Capacity{Inputs: s.NumInputs, Aux: s.NumAux, Constraints: s.NumConstraints,
		MatrixNonZeros: [3]int{s.A.NonZeros(), s.B.NonZeros(), s.C.NonZeros()}}
	digest := s.Digest
	s, first = nil, nil
	runtime.GC()
	b.Run("whole", func(b *testing.B) {
		for b.Loop() {
			r := r1cs.NewRecorder(capacity)
			if err := c.Synthesize(r); err != nil {
				b.Fatal(err)
			}
			if r.Finish().Digest != digest {
				b.Fatal("digest differs")
			}
		}
	})
	runtime.GC()
	b.Run("parts", func(b *testing.B) {
		layout, err := c.Parts()
		if err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			got, err := r1cs.RecordParts(capacity, layout, runtime.GOMAXPROCS(0), c.SynthesizeHead, c.SynthesizePart)
			if err != nil {
				b.Fatal(err)
			}
			if got.Digest != digest {
				b.Fatal("digest differs")
			}
		}
	})
	runtime.GC()
}
