package post

import (
	"testing"

	"github.com/snarkpipe/snarkpipe/prover/r1cs/r1cstest"
	"github.com/snarkpipe/snarkpipe/sealer/refseal"
	"github.com/snarkpipe/snarkpipe/types"
)

// TestPartsEqualRecording: Winning and Window over the real Venus 2 KiB sectors, the
// Curio 32 GiB sector, and a synthetic 2 KiB Window partition.
func TestPartsEqualRecording(t *testing.T) {
	info, err := types.PoStProof(5)
	if err != nil {
		t.Fatal(err)
	}
	sp, err := refseal.SynthPoStProofs(info, 3)
	if err != nil {
		t.Fatal(err)
	}
	synthetic, err := FromVanilla(info, sp.Proofs, 0)
	if err != nil {
		t.Fatal(err)
	}
	r1cstest.AssertPartsEqualRecording(t, synthetic)
	forRealPoStCircuits(t, func(c *Circuit) { r1cstest.AssertPartsEqualRecording(t, c) })
}
