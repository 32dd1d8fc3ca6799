package post

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/ipfs/go-cid"

	"github.com/snarkpipe/snarkpipe/prover/r1cs"
	"github.com/snarkpipe/snarkpipe/sealer/gadget"
	"github.com/snarkpipe/snarkpipe/sealer/graph"
	"github.com/snarkpipe/snarkpipe/types"
	"github.com/snarkpipe/snarkpipe/types/vanilla"
)

var writeFixtures = flag.Bool("write-fixtures", false, "rewrite the 2 KiB PoSt vanilla proof fixtures in testdata/ (used by cmd/snarkpipe tests)")

// venusSector is a real presealed 2 KiB sector of Venus's test genesis: its replica, tree R
// (Poseidon 8-0-0, 64 leaves) rebuilt here, comm_c and comm_r_last from p_aux and comm_r
// from the genesis JSON.
type venusSector struct {
	id               uint64
	commR            [32]byte
	commC, commRLast fr.Element
	leaves, level1   []fr.Element // 64 leaves, 8 level-1 nodes
}

func loadVenusSector(t testing.TB, i int) venusSector {
	t.Helper()
	dir := filepath.Join("venus-genesis-sectors-2KiB")
	var genesis map[string]struct {
		Sectors []struct {
			CommR    cid.Cid
			SectorID uint64
		}
	}
	if err := json.Unmarshal(readUpstream(t, filepath.Join(dir, "pre-seal-t0106.json")), &genesis); err != nil {
		t.Fatal(err)
	}
	sec := genesis["t0106"].Sectors[i]
	commR, err := types.CIDToCommR(sec.CommR)
	if err != nil {
		t.Fatal(err)
	}
	name := "s-t0106-" + string(rune('0'+i))
	replica := readUpstream(t, filepath.Join(dir, "sealed", name))
	paux := readUpstream(t, filepath.Join(dir, "cache", name, "p_aux"))
	v := venusSector{id: sec.SectorID, commR: [32]byte(commR)}
	v.commC = frLE(t, paux[:32])
	v.commRLast = frLE(t, paux[32:64])
	v.leaves = make([]fr.Element, 64)
	for j := range v.leaves {
		v.leaves[j] = frLE(t, replica[32*j:32*j+32])
	}
	v.level1 = make([]fr.Element, 8)
	for j := range v.level1 {
		v.level1[j] = gadget.HashPoseidon8((*[8]fr.Element)(v.leaves[8*j : 8*j+8]))
	}
	if root := gadget.HashPoseidon8((*[8]fr.Element)(v.level1)); root != v.commRLast {
		t.Fatalf("sector %d: tree R root differs from p_aux comm_r_last", i)
	}
	if h := gadget.HashPoseidon2(&v.commC, &v.commRLast); gadget.FrToBytesLE(&h) != v.commR {
		t.Fatalf("sector %d: Poseidon2(comm_c, comm_r_last) differs from the genesis comm_r", i)
	}
	return v
}

func frLE(t testing.TB, b []byte) fr.Element {
	t.Helper()
	v, err := gadget.FrFromBytesLE((*[32]byte)(b))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func domain(x *fr.Element) vanilla.Domain { return vanilla.Domain(gadget.FrToBytesLE(x)) }

// inclusion is the tree-R Merkle proof of leaf idx, as the vanilla prover writes it.
func (v *venusSector) inclusion(idx uint64) vanilla.MerkleProof {
	level := func(nodes []fr.Element, pos uint64) vanilla.PathElement {
		group := pos / 8 * 8
		e := vanilla.PathElement{Index: pos % 8}
		for j := group; j < group+8; j++ {
			if j != pos {
				e.Hashes = append(e.Hashes, domain(&nodes[j]))
			}
		}
		return e
	}
	return vanilla.MerkleProof{
		Kind: vanilla.ProofSingle,
		Base: []vanilla.PathElement{level(v.leaves, idx), level(v.level1, idx/8)},
		Root: domain(&v.commRLast),
		Leaf: domain(&v.leaves[idx]),
	}
}

// vanillaProof is the sector's PoSt vanilla proof for the given leaf challenges.
func (v *venusSector) vanillaProof(challenges []uint64) *vanilla.FallbackPoStSectorProof {
	s := vanilla.PoStSectorProof{CommC: domain(&v.commC), CommRLast: domain(&v.commRLast)}
	for _, c := range challenges {
		s.InclusionProofs = append(s.InclusionProofs, v.inclusion(c))
	}
	return &vanilla.FallbackPoStSectorProof{SectorID: v.id, CommR: v.commR, Sectors: []vanilla.PoStSectorProof{s}}
}

var venusRandomness = func() [32]byte {
	var r [32]byte
	for i := range r {
		r[i] = byte(3*i + 1)
	}
	return types.MaskFr(r)
}()

// venusPoSt returns, for a PoSt proof type, the vanilla proofs of both Venus sectors at
// positions 0 and 1 (Winning: sector 0 only) with the challenges upstream derives.
func venusPoSt(t testing.TB, info *types.PoStProofInfo) ([]*vanilla.FallbackPoStSectorProof, []PublicSector) {
	t.Helper()
	n := 2
	if info.Kind == types.PoStWinning {
		n = 1
	}
	var proofs []*vanilla.FallbackPoStSectorProof
	var pub []PublicSector
	for i := range n {
		v := loadVenusSector(t, i)
		ch, err := graph.PoStSectorChallenges(info, venusRandomness, v.id, i)
		if err != nil {
			t.Fatal(err)
		}
		proofs = append(proofs, v.vanillaProof(ch))
		pub = append(pub, PublicSector{ID: v.id, CommR: v.commR})
	}
	return proofs, pub
}

// TestVenus2KiBPoStSatisfied proves real 2 KiB sectors: Winning (66 copies), Window V1 and
// V1_2 with both sectors, and Window with one sector (a partial partition, padded).
// Every system must be satisfied and inputize exactly generate_public_inputs.
func TestVenus2KiBPoStSatisfied(t *testing.T) {
	for _, tc := range []struct {
		name    string
		id      types.RegisteredPoStProof
		sectors int
	}{
		{"winning", 0, 1}, {"window-v1", 5, 2}, {"window-v1_2", 10, 2}, {"window-partial", 5, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			info, err := types.PoStProof(tc.id)
			if err != nil {
				t.Fatal(err)
			}
			proofs, pub := venusPoSt(t, info)
			proofs, pub = proofs[:tc.sectors], pub[:tc.sectors]
			c, err := FromVanilla(info, proofs, 0)
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
			want, err := PublicInputs(info, venusRandomness, pub, 0)
			if err != nil {
				t.Fatal(err)
			}
			assertInputs(t, cs.Inputs(), want)
			// Other randomness gives other leaves: the inputs must no longer match.
			other := venusRandomness
			other[0] ^= 1
			if alt, err := PublicInputs(info, other, pub, 0); err != nil || equalInputs(cs.Inputs()[1:], alt) {
				t.Fatalf("inputs do not depend on the randomness (err %v)", err)
			}
			if *writeFixtures && tc.name != "window-partial" {
				writeVanillaFixture(t, info, proofs)
			}
		})
	}
}

func equalInputs(a, b []fr.Element) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// writeVanillaFixture stores the vanilla proofs (bincode, one file per sector; the
// randomness is venusRandomness: bytes 3i+1, masked), for the CLI tests.
func writeVanillaFixture(t *testing.T, info *types.PoStProofInfo, proofs []*vanilla.FallbackPoStSectorProof) {
	for i, p := range proofs {
		name := filepath.Join("testdata", fmt.Sprintf("venus-2KiB-post%d-sector%d.vproof", info.ID, i))
		if err := os.WriteFile(name, vanilla.EncodePoStSectorProof(p), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestVenusWindowSecondPartition proves three sector slots with 2 KiB Window PoSt (two
// per partition): sector 0, sector 1, and sector 0 again in slot 2, whose challenges
// depend on its slot (V1 numbers challenges across the proof). Partition 1 holds slot 2
// alone and is padded; both partitions must be satisfied with their own public inputs.
func TestVenusWindowSecondPartition(t *testing.T) {
	info, err := types.PoStProof(5)
	if err != nil {
		t.Fatal(err)
	}
	var proofs []*vanilla.FallbackPoStSectorProof
	var pub []PublicSector
	for slot, i := range []int{0, 1, 0} {
		v := loadVenusSector(t, i)
		ch, err := graph.PoStSectorChallenges(info, venusRandomness, v.id, slot)
		if err != nil {
			t.Fatal(err)
		}
		proofs = append(proofs, v.vanillaProof(ch))
		pub = append(pub, PublicSector{ID: v.id, CommR: v.commR})
	}
	if n := Partitions(info, len(proofs)); n != 2 {
		t.Fatalf("%d partitions, want 2", n)
	}
	for k := range 2 {
		c, err := FromVanilla(info, proofs, k)
		if err != nil {
			t.Fatal(err)
		}
		cs := r1cs.NewChecker()
		if err := c.Synthesize(cs); err != nil {
			t.Fatal(err)
		}
		if err := cs.Err(); err != nil {
			t.Fatalf("partition %d: %v", k, err)
		}
		want, err := PublicInputs(info, venusRandomness, pub, k)
		if err != nil {
			t.Fatal(err)
		}
		assertInputs(t, cs.Inputs(), want)
	}
	if _, err := PublicInputs(info, venusRandomness, pub, 2); err == nil {
		t.Error("partition 2 of 3 sectors accepted")
	}
}
