package post

import (
	"flag"
	"runtime"
	"testing"

	"github.com/snarkpipe/snarkpipe/prover/r1cs"
	"github.com/snarkpipe/snarkpipe/types"
)

var benchSectors = flag.Int("record.sectors", 300, "sectors of the 32 GiB-shaped Window circuit BenchmarkRecordWindowSectors records")

// BenchmarkRecordWindowSectors records the blank 32 GiB Window PoSt circuit with
// -record.sectors sectors (the partition has 2,349) whole, with one Recorder, and in
// parts, with r1cs.RecordParts on GOMAXPROCS workers (the pipeline's recording of a
// PartedCircuit, without its concurrent key synthesis, which "counter" approximates: a
// Counter synthesis of the whole). Both recorders are pre-sized from a first recording,
// as the pipeline's are from its probe.
//
//	go test ./sealer/post -run xxx -bench RecordWindowSectors -benchtime 2x [-args -record.sectors N]
func BenchmarkRecordWindowSectors(b *testing.B) {
	info, err := types.PoStProof(13)
	if err != nil {
		b.Fatal(err)
	}
	cfg := ConfigFor(info)
	cfg.SectorCount = *benchSectors
	c, err := Blank(cfg)
	if err != nil {
		b.Fatal(err)
	}
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
	b.Run("counter", func(b *testing.B) {
		for b.Loop() {
			if err := c.Synthesize(r1cs.NewCounter()); err != nil {
				b.Fatal(err)
			}
		}
	})
}
