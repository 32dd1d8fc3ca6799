package graph

import (
	"encoding/json"
	"testing"

	"github.com/filecoin-project/go-state-types/abi"
	"github.com/snarkpipe/snarkpipe/types"
	"github.com/snarkpipe/snarkpipe/types/vanilla"
)

// TestPoStChallengesMatchCurioVanillaProof derives the 10 Window PoSt challenges of Curio's
// real 32 GiB sector from the verify info (randomness, sector 1, proof type 8) and compares
// them with the leaves the real vanilla proof opens.
func TestPoStChallengesMatchCurioVanillaProof(t *testing.T) {
	var pub struct {
		Randomness []byte
		Proofs     []struct{ PoStProof abi.RegisteredPoStProof }
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
	want, err := PoStSectorChallenges(info, rnd, p.SectorID, 0)
	if err != nil {
		t.Fatal(err)
	}
	for i, ip := range p.Sectors[0].InclusionProofs {
		if got := ip.LeafIndex(info.Tree); got != want[i] {
			t.Errorf("challenge %d: proof opens leaf %d, derived %d", i, got, want[i])
		}
	}
}
