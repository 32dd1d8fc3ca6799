package sealer

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/filecoin-project/go-state-types/abi"
	"github.com/ipfs/go-cid"

	"github.com/snarkpipe/snarkpipe/types"
	"github.com/snarkpipe/snarkpipe/types/vanilla"
)

// upstreamDir holds the read-only upstream fixtures, relative to this package.
var upstreamDir = filepath.Join("..", "..", "shared", "testdata", "upstream")

func readUpstream(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(upstreamDir, name))
	if os.IsNotExist(err) {
		t.Skipf("upstream fixture %s not present (expected under %s)", name, upstreamDir)
	}
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// curioPoSt is Curio's proof.WindowPoStVerifyInfo as stored in postpub.json.
type curioPoSt struct {
	Randomness []byte
	Proofs     []struct {
		PoStProof  abi.RegisteredPoStProof
		ProofBytes []byte
	}
	ChallengedSectors []struct {
		SealProof    abi.RegisteredSealProof
		SectorNumber abi.SectorNumber
		SealedCID    cid.Cid
	}
	Prover abi.ActorID
}

// curioFixture loads the real 32 GiB Window PoSt: the public side and the raw vanilla proof.
func curioFixture(t testing.TB) (*PoStPublic, []byte) {
	t.Helper()
	var pub curioPoSt
	if err := json.Unmarshal(readUpstream(t, "curio-window-post-32GiB.postpub.json"), &pub); err != nil {
		t.Fatal(err)
	}
	raw := readUpstream(t, "curio-window-post-32GiB.vproof")
	info, err := types.PoStProof(pub.Proofs[0].PoStProof)
	if err != nil {
		t.Fatal(err)
	}
	out := &PoStPublic{Proof: info, Randomness: pub.Randomness}
	for _, s := range pub.ChallengedSectors {
		commR, err := types.CIDToCommR(s.SealedCID)
		if err != nil {
			t.Fatal(err)
		}
		out.Sectors = append(out.Sectors, PoStSector{Number: s.SectorNumber, CommR: commR})
	}
	return out, raw
}

// decodeAndVerifyPoSt is the whole path a PoSt request takes through validation.
func decodeAndVerifyPoSt(pub *PoStPublic, raw []byte) error {
	p, err := vanilla.DecodePoStSectorProof(raw)
	if err != nil {
		return err
	}
	return VerifyPoSt(pub, []*vanilla.FallbackPoStSectorProof{p})
}
