package post

import (
	"testing"

	"github.com/snarkpipe/snarkpipe/prover/r1cs"
	"github.com/snarkpipe/snarkpipe/sealer/refseal"
	"github.com/snarkpipe/snarkpipe/types"
)

// assertPartsEqualRecording records c whole and sector by sector (Parts, SynthesizePart,
// r1cs.PartRecorder, r1cs.Joiner, the parts synthesized before any is joined, as the
// pipeline's workers do) and requires the same recording.
func assertPartsEqualRecording(t *testing.T, c *Circuit) {
	t.Helper()
	whole := r1cs.NewRecorder(r1cs.Capacity{})
	if err := c.Synthesize(whole); err != nil {
		t.Fatal(err)
	}
	want := whole.Finish()
	n, inPer, auxPer, err := c.Parts()
	if err != nil {
		t.Fatal(err)
	}
	if n != len(c.Sectors) || 1+n*inPer != want.NumInputs || n*auxPer != want.NumAux {
		t.Fatalf("Parts: %d × (%d inputs, %d aux), the recording has %d inputs and %d aux", n, inPer, auxPer, want.NumInputs, want.NumAux)
	}
	parts := make([]*r1cs.PartRecorder, n)
	for i := n - 1; i >= 0; i-- { // out of order: parts are independent
		parts[i] = r1cs.NewPartRecorder(r1cs.Capacity{}, 1+i*inPer, i*auxPer)
		if err := c.SynthesizePart(parts[i], i); err != nil {
			t.Fatal(err)
		}
	}
	j := r1cs.NewJoiner(r1cs.Capacity{})
	for i, p := range parts {
		if err := j.Add(p); err != nil {
			t.Fatalf("part %d: %v", i, err)
		}
	}
	if got := j.Finish(); got.Digest != want.Digest || got.Counts() != want.Counts() {
		t.Fatalf("recording in parts differs: counts %+v, want %+v", got.Counts(), want.Counts())
	}
	if err := c.SynthesizePart(r1cs.NewPartRecorder(r1cs.Capacity{}, 1, 0), n); err == nil {
		t.Error("part past the last sector accepted")
	}
}

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
	assertPartsEqualRecording(t, synthetic)
	forRealPoStCircuits(t, func(c *Circuit) { assertPartsEqualRecording(t, c) })
}
