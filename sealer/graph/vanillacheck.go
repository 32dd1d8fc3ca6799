package graph

import (
	"fmt"

	"github.com/filecoin-project/go-state-types/abi"

	"github.com/snarkpipe/snarkpipe/types"
	"github.com/snarkpipe/snarkpipe/types/vanilla"
)

// IndexError reports a vanilla proof that opens another node than the challenge or parent
// derivation requires.
type IndexError struct {
	Partition, Challenge int    // position in the proof
	What                 string // which opening
	Got, Want            uint64
}

func (e *IndexError) Error() string {
	return fmt.Sprintf("graph: partition %d challenge %d: %s opens node %d, want %d", e.Partition, e.Challenge, e.What, e.Got, e.Want)
}

// CheckReplicaID reports whether the C1 output's replica_id is the one of this miner and
// sector (the C1 JSON carries neither, so a C1 sent with the wrong sector is caught here).
func CheckReplicaID(c1 *vanilla.SealCommitPhase1Output, info *types.SealProofInfo, miner abi.ActorID, sector abi.SectorNumber) error {
	want := types.ReplicaID(types.ProverID(miner), sector, c1.Ticket, c1.CommD, info.PoRepID)
	if want != c1.ReplicaID {
		return fmt.Errorf("graph: replica_id %x is not the one of miner %d sector %d (%x)", c1.ReplicaID, miner, sector, want)
	}
	return nil
}

// CheckC1Indices checks, without hashing, that every vanilla proof of a shape-validated C1
// output (vanilla.SealCommitPhase1Output.Validate) opens the nodes the public inputs will
// name: the challenge derived for its partition and position (in tree D, tree R, the column
// and the labeling and encoding proofs) and the challenge's 6 DRG and 8 expander parent
// columns. The first mismatch is returned as *IndexError.
func CheckC1Indices(c1 *vanilla.SealCommitPhase1Output, info *types.SealProofInfo) error {
	g, err := ForSealProof(info)
	if err != nil {
		return err
	}
	treeD := types.TreeShape{Base: 2}
	for k, part := range c1.VanillaProofs {
		challenges, err := PoRepChallenges(info, c1.ReplicaID, c1.CommR, c1.Seed, k)
		if err != nil {
			return err
		}
		cps, err := g.WithParents(challenges)
		if err != nil {
			return err
		}
		for i := range part {
			if err := checkStacked(&part[i], &cps[i], info.Tree, treeD); err != nil {
				err.Partition, err.Challenge = k, i
				return err
			}
		}
	}
	return nil
}

func checkStacked(p *vanilla.StackedProof, cp *ChallengeParents, tree, treeD types.TreeShape) *IndexError {
	c := cp.Challenge
	rcp := &p.ReplicaColumnProofs
	checks := []struct {
		what      string
		got, want uint64
	}{
		{"comm_d proof", p.CommDProofs.LeafIndex(treeD), c},
		{"comm_r_last proof", p.CommRLastProof.LeafIndex(tree), c},
		{"c_x column", uint64(rcp.CX.Index), c},
		{"c_x inclusion proof", rcp.CX.InclusionProof.LeafIndex(tree), c},
		{"encoding proof", p.EncodingProof.Node, c},
	}
	for _, ck := range checks {
		if ck.got != ck.want {
			return &IndexError{What: ck.what, Got: ck.got, Want: ck.want}
		}
	}
	for l, lp := range p.LabelingProofs {
		if lp.Node != c {
			return &IndexError{What: fmt.Sprintf("labeling proof %d", l), Got: lp.Node, Want: c}
		}
	}
	for j, col := range rcp.DrgParents {
		if err := checkColumn(&col, uint64(cp.Base[j]), tree, fmt.Sprintf("drg parent %d", j)); err != nil {
			return err
		}
	}
	for j, col := range rcp.ExpParents {
		if err := checkColumn(&col, uint64(cp.Exp[j]), tree, fmt.Sprintf("exp parent %d", j)); err != nil {
			return err
		}
	}
	return nil
}

func checkColumn(col *vanilla.ColumnProof, want uint64, tree types.TreeShape, what string) *IndexError {
	if uint64(col.Index) != want {
		return &IndexError{What: what + " column", Got: uint64(col.Index), Want: want}
	}
	if got := col.InclusionProof.LeafIndex(tree); got != want {
		return &IndexError{What: what + " inclusion proof", Got: got, Want: want}
	}
	return nil
}

// CheckPoStIndices checks that a shape-validated PoSt vanilla proof opens exactly the leaves
// derived for its sector at sectorIndex (partition·sectors_per_partition + position), and that
// every opening is rooted at the proof's comm_r_last.
func CheckPoStIndices(info *types.PoStProofInfo, randomness [32]byte, p *vanilla.FallbackPoStSectorProof, sectorIndex int) error {
	want, err := PoStSectorChallenges(info, randomness, p.SectorID, sectorIndex)
	if err != nil {
		return err
	}
	s := &p.Sectors[0]
	if len(s.InclusionProofs) != len(want) {
		return fmt.Errorf("graph: %d inclusion proofs, want %d", len(s.InclusionProofs), len(want))
	}
	for i := range s.InclusionProofs {
		ip := &s.InclusionProofs[i]
		if got := ip.LeafIndex(info.Tree); got != want[i] {
			return &IndexError{Challenge: i, What: "PoSt inclusion proof", Got: got, Want: want[i]}
		}
		if ip.Root != s.CommRLast {
			return fmt.Errorf("graph: PoSt inclusion proof %d is not rooted at comm_r_last", i)
		}
	}
	return nil
}
