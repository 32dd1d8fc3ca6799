package graph

import (
	"encoding/json"
	"testing"

	"github.com/filecoin-project/go-state-types/abi"
	"github.com/snarkpipe/snarkpipe/types"
	"github.com/snarkpipe/snarkpipe/types/vanilla"
)

// leafIndex reconstructs the challenged leaf from a Merkle path: each level's index is one
// digit, least significant first, in the arity of that level.
func leafIndex(p *vanilla.MerkleProof, shape types.TreeShape) uint64 {
	var idx, scale uint64 = 0, 1
	for _, lv := range []struct {
		path  []vanilla.PathElement
		arity int
	}{{p.Base, shape.Base}, {p.Sub, shape.Sub}, {p.Top, shape.Top}} {
		for _, e := range lv.path {
			idx += e.Index * scale
			scale *= uint64(lv.arity)
		}
	}
	return idx
}

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
		if got := leafIndex(&ip, info.Tree); got != want[i] {
			t.Errorf("challenge %d: proof opens leaf %d, derived %d", i, got, want[i])
		}
	}
}
