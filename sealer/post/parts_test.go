package post

import (
	"testing"

	"github.com/snarkpipe/snarkpipe/prover/r1cs/r1cstest"
)

// TestPartsEqualRecording: Winning and Window over the real Venus 2 KiB sectors, the
// Curio 32 GiB sector, and a synthetic 2 KiB Window partition.
func TestPartsEqualRecording(t *testing.T) {
	info, sp := synthPoSt(t, 5, 3) // 2 KiB Window
	synthetic, err := FromVanilla(info, sp.Proofs, 0)
	if err != nil {
		t.Fatal(err)
	}
	r1cstest.AssertPartsEqualRecording(t, synthetic)
	forRealPoStCircuits(t, func(c *Circuit) { r1cstest.AssertPartsEqualRecording(t, c) })
}
