package post

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/filecoin-project/go-state-types/abi"
	"github.com/ipfs/go-cid"

	"github.com/snarkpipe/snarkpipe/prover/r1cs"
	"github.com/snarkpipe/snarkpipe/types"
	"github.com/snarkpipe/snarkpipe/types/vanilla"
)

// upstreamDir holds the real upstream fixtures (read in place, never copied).
var upstreamDir = filepath.Join("..", "..", "..", "shared", "testdata", "upstream")

func readUpstream(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(upstreamDir, name))
	if os.IsNotExist(err) {
		t.Skipf("upstream fixture %s not present under %s", name, upstreamDir)
	}
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// curioFixture is Curio's real 32 GiB Window PoSt: the vanilla proof of sector 1 of
// t01000 and its verify info.
type curioFixture struct {
	info       *types.PoStProofInfo
	proof      *vanilla.FallbackPoStSectorProof
	randomness [32]byte
	sector     PublicSector
}

func loadCurio(t testing.TB) curioFixture {
	t.Helper()
	var pub struct {
		Randomness        []byte
		Proofs            []struct{ PoStProof abi.RegisteredPoStProof }
		ChallengedSectors []struct {
			SectorNumber uint64
			SealedCID    cid.Cid
		}
	}
	if err := json.Unmarshal(readUpstream(t, "curio-window-post-32GiB.postpub.json"), &pub); err != nil {
		t.Fatal(err)
	}
	p, err := vanilla.DecodePoStSectorProof(readUpstream(t, "curio-window-post-32GiB.vproof"))
	if err != nil {
		t.Fatal(err)
	}
	info, err := types.PoStProof(pub.Proofs[0].PoStProof)
	if err != nil {
		t.Fatal(err)
	}
	rnd, ok := types.MaskRandomness(pub.Randomness)
	if !ok {
		t.Fatalf("randomness of %d bytes", len(pub.Randomness))
	}
	commR, err := types.CIDToCommR(pub.ChallengedSectors[0].SealedCID)
	if err != nil {
		t.Fatal(err)
	}
	if [32]byte(commR) != [32]byte(p.CommR) || pub.ChallengedSectors[0].SectorNumber != p.SectorID {
		t.Fatalf("verify info (sector %d, comm_r %x) does not match the vanilla proof (sector %d, %x)",
			pub.ChallengedSectors[0].SectorNumber, commR, p.SectorID, p.CommR)
	}
	return curioFixture{info: info, proof: p, randomness: rnd, sector: PublicSector{ID: p.SectorID, CommR: commR}}
}

// oneSectorInfo is info with a one-sector partition: the per-sector sub-circuit of the
// Window PoSt, the same rows as one sector of the real partition.
func oneSectorInfo(info *types.PoStProofInfo) *types.PoStProofInfo {
	sub := *info
	sub.CircuitSectorCount = 1
	sub.CircuitID += "-1sector"
	return &sub
}

// TestCurioWindowSectorSatisfied builds the per-sector sub-circuit of Curio's real
// 32 GiB Window PoSt from its vanilla proof and checks that every row holds and that
// its public inputs are exactly generate_public_inputs from the verify info.
func TestCurioWindowSectorSatisfied(t *testing.T) {
	fx := loadCurio(t)
	info := oneSectorInfo(fx.info)
	c, err := FromVanilla(info, []*vanilla.FallbackPoStSectorProof{fx.proof}, 0)
	if err != nil {
		t.Fatal(err)
	}
	cs := r1cs.NewChecker()
	if err := c.Synthesize(cs); err != nil {
		t.Fatal(err)
	}
	if err := cs.Err(); err != nil {
		t.Fatal(err)
	}
	if got, want := cs.Sizes().NumConstraints, 313+10*5302; got != want {
		t.Errorf("%d rows, want %d", got, want)
	}
	want, err := PublicInputs(info, fx.randomness, []PublicSector{fx.sector}, 0)
	if err != nil {
		t.Fatal(err)
	}
	assertInputs(t, cs.Inputs(), want)
}

// TestCurioWindowTamperedFails changes one sibling of one path: the circuit must fail,
// at that inclusion's root equality.
func TestCurioWindowTamperedFails(t *testing.T) {
	fx := loadCurio(t)
	info := oneSectorInfo(fx.info)
	c, err := FromVanilla(info, []*vanilla.FallbackPoStSectorProof{fx.proof}, 0)
	if err != nil {
		t.Fatal(err)
	}
	sib := &c.Sectors[0].Leaves[3].Path.Siblings[2][1]
	sib.Add(sib, &c.Sectors[0].CommR)
	cs := r1cs.NewChecker()
	if err := c.Synthesize(cs); err != nil {
		t.Fatal(err)
	}
	if cs.Err() == nil {
		t.Fatal("tampered sibling satisfied the circuit")
	}
	// A wrong comm_r keeps the inputize row (row 0) satisfied, the input carrying the same
	// value, and breaks comm_r = H(comm_c, comm_r_last): row 312, after the 311 Poseidon rows.
	c, _ = FromVanilla(info, []*vanilla.FallbackPoStSectorProof{fx.proof}, 0)
	c.Sectors[0].CommR.SetUint64(7)
	cs = r1cs.NewChecker()
	if err := c.Synthesize(cs); err != nil {
		t.Fatal(err)
	}
	var ue *r1cs.UnsatisfiedError
	if err := cs.Err(); !asUnsat(err, &ue) || ue.Row != 312 {
		t.Fatalf("tampered comm_r: first failing row %v, want row 312 (the equality)", err)
	}
}

// TestCurioWindowFullPartition pads the real proof to the full 2349-sector partition
// (upstream's padding) and checks it: 125,279,217 rows, ~4 GiB of witness. Needs -large.
func TestCurioWindowFullPartition(t *testing.T) {
	if !*large || testing.Short() {
		t.Skip("full 32 GiB Window partition: run with -large (and without -short)")
	}
	fx := loadCurio(t)
	start := time.Now()
	c, err := FromVanilla(fx.info, []*vanilla.FallbackPoStSectorProof{fx.proof}, 0)
	if err != nil {
		t.Fatal(err)
	}
	cs := r1cs.NewChecker()
	if err := c.Synthesize(cs); err != nil {
		t.Fatal(err)
	}
	if err := cs.Err(); err != nil {
		t.Fatal(err)
	}
	if got := cs.Sizes().NumConstraints; got != 125_279_217 {
		t.Errorf("%d rows", got)
	}
	want, err := PublicInputs(fx.info, fx.randomness, []PublicSector{fx.sector}, 0)
	if err != nil {
		t.Fatal(err)
	}
	assertInputs(t, cs.Inputs(), want)
	t.Logf("full partition checked in %v", time.Since(start))
}
