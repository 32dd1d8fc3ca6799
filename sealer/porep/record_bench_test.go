package porep

import (
	"flag"
	"testing"

	"github.com/snarkpipe/snarkpipe/prover/r1cs/r1cstest"
)

var benchChallenges = flag.Int("record.challenges", 4, "challenges of the 32 GiB-shaped partition BenchmarkRecordChallenges records")

// BenchmarkRecordChallenges records the blank 32 GiB PoRep circuit with
// -record.challenges challenges (a partition has 18) whole and in parts (header, then one
// part per challenge): r1cstest.BenchmarkWholeAndParts.
//
//	go test ./sealer/porep -run xxx -bench RecordChallenges -benchtime 2x [-args -record.challenges N]
func BenchmarkRecordChallenges(b *testing.B) {
	cfg := sealConfig(b, 8)
	cfg.Challenges = *benchChallenges
	c, err := Blank(cfg)
	if err != nil {
		b.Fatal(err)
	}
	r1cstest.BenchmarkWholeAndParts(b, c)
}
