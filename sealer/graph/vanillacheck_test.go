package graph

import (
	"errors"
	"testing"

	"github.com/filecoin-project/go-state-types/abi"

	"github.com/snarkpipe/snarkpipe/types"
	"github.com/snarkpipe/snarkpipe/types/vanilla"
)

// openLeaf builds a Merkle proof of the given depth that opens leaf idx (hashes are zero).
func openLeaf(idx uint64, d vanilla.TreeDepth) vanilla.MerkleProof {
	level := func(n, arity int) []vanilla.PathElement {
		out := make([]vanilla.PathElement, n)
		for i := range out {
			out[i] = vanilla.PathElement{Hashes: make([]vanilla.Domain, arity-1), Index: idx % uint64(arity)}
			idx /= uint64(arity)
		}
		return out
	}
	p := vanilla.MerkleProof{Kind: d.Kind, Base: level(d.BaseLevels, d.Shape.Base)}
	if d.Kind >= vanilla.ProofSub {
		p.Sub = level(1, d.Shape.Sub)
	}
	if d.Kind == vanilla.ProofTop {
		p.Top = level(1, d.Shape.Top)
	}
	return p
}

func column(idx uint32, layers int, d vanilla.TreeDepth) vanilla.ColumnProof {
	return vanilla.ColumnProof{Index: idx, Rows: make([]vanilla.Domain, layers), InclusionProof: openLeaf(uint64(idx), d)}
}

// consistentC1 builds a C1 output whose openings follow the derived challenges and parents.
func consistentC1(t *testing.T, info *types.SealProofInfo, miner abi.ActorID, sector abi.SectorNumber) *vanilla.SealCommitPhase1Output {
	c1 := &vanilla.SealCommitPhase1Output{RegisteredProof: info.RustName, ShapeName: info.ShapeName}
	c1.Ticket[0], c1.Seed[0], c1.CommD[0], c1.CommR[0] = 1, 2, 3, 4
	c1.ReplicaID = types.ReplicaID(types.ProverID(miner), sector, c1.Ticket, c1.CommD, info.PoRepID)
	g, _ := ForSealProof(info)
	treeR, treeD := vanilla.TreeRDepth(info.SectorShape), vanilla.TreeDDepth(info.SectorShape)
	for k := 0; k < info.PartitionCount; k++ {
		cs, err := PoRepChallenges(info, c1.ReplicaID, c1.CommR, c1.Seed, k)
		if err != nil {
			t.Fatal(err)
		}
		cps, _ := g.WithParents(cs)
		var part []vanilla.StackedProof
		for _, cp := range cps {
			p := vanilla.StackedProof{CommDProofs: openLeaf(cp.Challenge, treeD), CommRLastProof: openLeaf(cp.Challenge, treeR)}
			p.ReplicaColumnProofs.CX = column(uint32(cp.Challenge), info.Layers, treeR)
			for _, b := range cp.Base {
				p.ReplicaColumnProofs.DrgParents = append(p.ReplicaColumnProofs.DrgParents, column(b, info.Layers, treeR))
			}
			for _, e := range cp.Exp {
				p.ReplicaColumnProofs.ExpParents = append(p.ReplicaColumnProofs.ExpParents, column(e, info.Layers, treeR))
			}
			for l := 1; l <= info.Layers; l++ {
				p.LabelingProofs = append(p.LabelingProofs, vanilla.LabelingProof{Parents: make([]vanilla.Domain, vanilla.TotalParents), LayerIndex: uint32(l), Node: cp.Challenge})
			}
			p.EncodingProof = vanilla.LabelingProof{Parents: make([]vanilla.Domain, vanilla.TotalParents), LayerIndex: uint32(info.Layers), Node: cp.Challenge}
			part = append(part, p)
		}
		c1.VanillaProofs = append(c1.VanillaProofs, part)
	}
	return c1
}

func TestCheckC1Indices(t *testing.T) {
	for _, id := range []abi.RegisteredSealProof{0, 5, 10, 15, 3, 9} {
		if testing.Short() && (id == 3 || id == 9) {
			continue // 32/64 GiB: 180 challenges, still fast, but keep -short minimal
		}
		info, _ := types.SealProof(id)
		c1 := consistentC1(t, info, 1000, 42)
		dec, err := vanilla.DecodeC1(vanilla.EncodeC1(c1))
		if err != nil {
			t.Fatalf("id %d: %v", id, err)
		}
		if _, err := dec.Validate(); err != nil {
			t.Fatalf("id %d: %v", id, err)
		}
		if err := CheckC1Indices(dec, info); err != nil {
			t.Fatalf("id %d: %v", id, err)
		}
		if err := CheckReplicaID(dec, info, 1000, 42); err != nil {
			t.Fatalf("id %d: %v", id, err)
		}
		if err := CheckReplicaID(dec, info, 1000, 43); err == nil {
			t.Errorf("id %d: wrong sector accepted", id)
		}
	}
	info, _ := types.SealProof(5)
	mutations := map[string]func(c *vanilla.SealCommitPhase1Output){
		"challenge": func(c *vanilla.SealCommitPhase1Output) { c.Seed[5] ^= 1 },
		"tree d":    func(c *vanilla.SealCommitPhase1Output) { c.VanillaProofs[0][1].CommDProofs.Base[0].Index ^= 1 },
		"drg column": func(c *vanilla.SealCommitPhase1Output) {
			c.VanillaProofs[0][0].ReplicaColumnProofs.DrgParents[3].Index++
		},
		"exp path": func(c *vanilla.SealCommitPhase1Output) {
			e := &c.VanillaProofs[0][0].ReplicaColumnProofs.ExpParents[7].InclusionProof.Base[1]
			e.Index = (e.Index + 1) % 8
		},
		"label node": func(c *vanilla.SealCommitPhase1Output) { c.VanillaProofs[0][1].LabelingProofs[1].Node++ },
	}
	for name, mutate := range mutations {
		c1 := consistentC1(t, info, 7, 8)
		mutate(c1)
		var ie *IndexError
		if err := CheckC1Indices(c1, info); !errors.As(err, &ie) {
			t.Errorf("%s: err = %v", name, err)
		}
	}
}

func TestCheckPoStIndicesCurio(t *testing.T) {
	p, err := vanilla.DecodePoStSectorProof(readUpstream(t, "curio-window-post-32GiB.vproof"))
	if err != nil {
		t.Fatal(err)
	}
	info, _ := types.PoStProof(abi.RegisteredPoStProof_StackedDrgWindow32GiBV1)
	var zero [32]byte // the fixture's randomness
	if err := CheckPoStIndices(info, zero, p, 0); err != nil {
		t.Fatal(err)
	}
	// At another position the V1 challenge indices shift, so the openings no longer match.
	var ie *IndexError
	if err := CheckPoStIndices(info, zero, p, 1); !errors.As(err, &ie) {
		t.Fatalf("sector index 1: %v", err)
	}
	// V1_2 indexing does not depend on the position.
	v12, _ := types.PoStProof(abi.RegisteredPoStProof_StackedDrgWindow32GiBV1_1)
	if err := CheckPoStIndices(v12, zero, p, 5); err != nil {
		t.Fatalf("V1_2 at index 5: %v", err)
	}
}
