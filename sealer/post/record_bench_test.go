package post

import (
	"flag"
	"testing"

	"github.com/snarkpipe/snarkpipe/prover/r1cs"
	"github.com/snarkpipe/snarkpipe/prover/r1cs/r1cstest"
	"github.com/snarkpipe/snarkpipe/types"
)

var benchSectors = flag.Int("record.sectors", 300, "sectors of the 32 GiB-shaped Window circuit BenchmarkRecordWindowSectors records")

// BenchmarkRecordWindowSectors records the blank 32 GiB Window PoSt circuit with
// -record.sectors sectors (the partition has 2,349) whole and in parts
// (r1cstest.BenchmarkWholeAndParts), and "counter" synthesizes it into a Counter: about
// the key's synthesis, which the pipeline runs beside the parts.
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
	r1cstest.BenchmarkWholeAndParts(b, c)
	b.Run("counter", func(b *testing.B) {
		for b.Loop() {
			if err := c.Synthesize(r1cs.NewCounter()); err != nil {
				b.Fatal(err)
			}
		}
	})
}
