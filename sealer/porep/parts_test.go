package porep

import (
	"testing"

	"github.com/snarkpipe/snarkpipe/prover/r1cs/r1cstest"
)

// TestPartsEqualRecording: a real sealed 2 KiB partition and blank test configs of three
// tree shapes record the same in parts (header, then one part per challenge) as whole.
func TestPartsEqualRecording(t *testing.T) {
	r1cstest.AssertPartsEqualRecording(t, sealed2KiBPartition(t))
	for _, cfg := range []Config{stackedTestConfig(8, 0, 0), stackedTestConfig(8, 2, 0), stackedTestConfig(8, 8, 2)} {
		c, err := Blank(cfg)
		if err != nil {
			t.Fatal(err)
		}
		r1cstest.AssertPartsEqualRecording(t, c)
	}
}
