package post

import (
	"testing"
	"time"

	"github.com/snarkpipe/snarkpipe/prover/r1cs"
	"github.com/snarkpipe/snarkpipe/sealer/refseal"
	"github.com/snarkpipe/snarkpipe/types"
)

// synthCheck builds the circuit of partition 0 of a synthetic PoSt (refseal, verified
// natively there) and its public inputs.
func synthCheck(t *testing.T, id types.RegisteredPoStProof) {
	info, err := types.PoStProof(id)
	if err != nil {
		t.Fatal(err)
	}
	sp, err := refseal.SynthPoStProofs(info, 11)
	if err != nil {
		t.Fatal(err)
	}
	rnd, ok := types.MaskRandomness(sp.Randomness)
	if !ok || rnd != [32]byte(sp.Randomness) {
		t.Fatalf("synthetic randomness %x is not a canonical 32-byte value", sp.Randomness)
	}
	pub := make([]PublicSector, len(sp.Sectors))
	for i, s := range sp.Sectors {
		pub[i] = PublicSector{ID: uint64(s.Number), CommR: [32]byte(s.CommR)}
	}
	c, err := FromVanilla(info, sp.Proofs, 0)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	cs := r1cs.NewChecker()
	if err := c.Synthesize(cs); err != nil {
		t.Fatal(err)
	}
	if err := cs.Err(); err != nil {
		t.Fatal(err)
	}
	want, err := PublicInputs(info, rnd, pub, 0)
	if err != nil {
		t.Fatal(err)
	}
	assertInputs(t, cs.Inputs(), want)
	t.Logf("%s: %d rows checked in %v", info.RustName, cs.Sizes().NumConstraints, time.Since(start))
}

// TestSyntheticWinningSatisfied: Winning PoSt at 32 GiB (8-8-0) and 64 GiB (8-8-2, the
// only production shape with a top tree) from refseal's synthetic vanilla proofs.
func TestSyntheticWinningSatisfied(t *testing.T) {
	for _, id := range []types.RegisteredPoStProof{3, 4} {
		synthCheck(t, id)
	}
}

// TestSyntheticWindow32GiBPartition: a full 2349-sector Window PoSt V1_2 partition of
// synthetic sectors (125 M rows, ~12 GB for the checker): needs -large.
func TestSyntheticWindow32GiBPartition(t *testing.T) {
	if !*large || testing.Short() {
		t.Skip("full synthetic 32 GiB Window partition: run with -large (and without -short)")
	}
	synthCheck(t, 13)
}
