package vanilla

import (
	"math/bits"

	"github.com/snarkpipe/snarkpipe/types"
)

// TreeDepth describes the expected shape of a Merkle proof: base levels of arity Base, then at
// most one sub level and one top level.
type TreeDepth struct {
	Kind       ProofKind
	BaseLevels int
	Shape      types.TreeShape
}

// TreeRDepth returns the shape of tree R (and tree C) proofs for a sector shape.
func TreeRDepth(s types.SectorShape) TreeDepth {
	leaves := s.Nodes()
	kind := ProofSingle
	if s.Tree.Sub > 0 {
		leaves /= uint64(s.Tree.Sub)
		kind = ProofSub
	}
	if s.Tree.Top > 0 {
		leaves /= uint64(s.Tree.Top)
		kind = ProofTop
	}
	return TreeDepth{Kind: kind, BaseLevels: bits.TrailingZeros64(leaves) / bits.TrailingZeros64(uint64(s.Tree.Base)), Shape: s.Tree}
}

// TreeDDepth returns the shape of tree D proofs: binary SHA-256 over all nodes.
func TreeDDepth(s types.SectorShape) TreeDepth {
	return TreeDepth{Kind: ProofSingle, BaseLevels: bits.TrailingZeros64(s.Nodes()), Shape: types.TreeShape{Base: 2}}
}

// CheckShape reports whether p has exactly the levels and sibling counts of d.
func (d TreeDepth) CheckShape(p *MerkleProof) error {
	if p.Kind != d.Kind {
		return shapeErrorf("merkle proof kind %s, want %s", p.Kind, d.Kind)
	}
	if err := checkLevels("base", p.Base, d.BaseLevels, d.Shape.Base); err != nil {
		return err
	}
	if d.Kind >= ProofSub {
		if err := checkLevels("sub", p.Sub, 1, d.Shape.Sub); err != nil {
			return err
		}
	} else if len(p.Sub) != 0 {
		return shapeErrorf("unexpected sub path")
	}
	if d.Kind == ProofTop {
		return checkLevels("top", p.Top, 1, d.Shape.Top)
	} else if len(p.Top) != 0 {
		return shapeErrorf("unexpected top path")
	}
	return nil
}

func checkLevels(name string, path []PathElement, levels, arity int) error {
	if len(path) != levels {
		return shapeErrorf("%s path has %d levels, want %d", name, len(path), levels)
	}
	for i, e := range path {
		if len(e.Hashes) != arity-1 {
			return shapeErrorf("%s path level %d has %d siblings, want %d", name, i, len(e.Hashes), arity-1)
		}
		if e.Index >= uint64(arity) {
			return shapeErrorf("%s path level %d index %d not below arity %d", name, i, e.Index, arity)
		}
	}
	return nil
}

// TotalParents is the number of parent labels hashed per label (upstream TOTAL_PARENTS).
const TotalParents = 37

// Validate checks the output against its registered proof type: the proof type is known and
// its shape key matches, and every partition, challenge, layer, column and Merkle path has
// exactly the size that type requires. It checks no hashes.
func (c *SealCommitPhase1Output) Validate() (*types.SealProofInfo, error) {
	info, err := c.ProofInfo()
	if err != nil {
		return nil, shapeErrorf("%v", err)
	}
	if c.ShapeName != info.ShapeName {
		return nil, shapeErrorf("vanilla proofs keyed %q, want %q for %s", c.ShapeName, info.ShapeName, info.RustName)
	}
	if len(c.VanillaProofs) != info.PartitionCount {
		return nil, shapeErrorf("%d partitions, want %d", len(c.VanillaProofs), info.PartitionCount)
	}
	treeR, treeD := TreeRDepth(info.SectorShape), TreeDDepth(info.SectorShape)
	for k, part := range c.VanillaProofs {
		if len(part) != info.ChallengesPerPartition {
			return nil, shapeErrorf("partition %d has %d challenges, want %d", k, len(part), info.ChallengesPerPartition)
		}
		for i := range part {
			if err := part[i].checkShape(info, treeR, treeD); err != nil {
				return nil, shapeErrorf("partition %d challenge %d: %v", k, i, err)
			}
		}
	}
	return info, nil
}

func (p *StackedProof) checkShape(info *types.SealProofInfo, treeR, treeD TreeDepth) error {
	if err := treeD.CheckShape(&p.CommDProofs); err != nil {
		return err
	}
	if err := treeR.CheckShape(&p.CommRLastProof); err != nil {
		return err
	}
	rcp := &p.ReplicaColumnProofs
	if len(rcp.DrgParents) != 6 || len(rcp.ExpParents) != 8 {
		return shapeErrorf("%d drg and %d exp parent columns, want 6 and 8", len(rcp.DrgParents), len(rcp.ExpParents))
	}
	cols := append([]ColumnProof{rcp.CX}, rcp.DrgParents...)
	for _, col := range append(cols, rcp.ExpParents...) {
		if len(col.Rows) != info.Layers {
			return shapeErrorf("column %d has %d rows, want %d", col.Index, len(col.Rows), info.Layers)
		}
		if err := treeR.CheckShape(&col.InclusionProof); err != nil {
			return err
		}
	}
	if len(p.LabelingProofs) != info.Layers {
		return shapeErrorf("%d labeling proofs, want %d", len(p.LabelingProofs), info.Layers)
	}
	for l, lp := range append(p.LabelingProofs, p.EncodingProof) {
		if len(lp.Parents) != TotalParents {
			return shapeErrorf("labeling proof %d has %d parents, want %d", l, len(lp.Parents), TotalParents)
		}
		if want := uint32(min(l+1, info.Layers)); lp.LayerIndex != want {
			return shapeErrorf("labeling proof %d has layer index %d, want %d", l, lp.LayerIndex, want)
		}
	}
	return nil
}
