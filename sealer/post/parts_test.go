package post

import (
	"testing"

	"github.com/snarkpipe/snarkpipe/prover/r1cs"
	"github.com/snarkpipe/snarkpipe/sealer/refseal"
	"github.com/snarkpipe/snarkpipe/types"
)

// assertPartsEqualRecording records c whole and sector by sector (Parts, SynthesizeHead,
// SynthesizePart through r1cs.RecordParts on 3 workers, as the pipeline does) and
// requires the same recording.
func assertPartsEqualRecording(t *testing.T, c *Circuit) {
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
	if l.N != len(c.Sectors) || 1+l.HeadInputs+l.N*l.InputsPer != want.NumInputs || l.HeadAux+l.N*l.AuxPer != want.NumAux {
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
