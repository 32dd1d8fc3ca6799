package porep

import (
	"errors"
	"fmt"
	"math/bits"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/snarkpipe/snarkpipe/sealer/gadget"
	"github.com/snarkpipe/snarkpipe/types/vanilla"
)

// ErrVanilla reports vanilla proof data the circuit cannot be built from.
var ErrVanilla = errors.New("porep: unusable vanilla proof")

// FromC1 builds the circuit of partition k of a C1 output (StackedCompound::circuit):
// comm_r_last and comm_c are the roots of the first challenge's tree-R and tree-C proofs,
// and every challenge must agree on them. It checks shapes, not hashes: an inconsistent
// proof gives a circuit that is not satisfied.
func FromC1(c1 *vanilla.SealCommitPhase1Output, k int) (*Circuit, error) {
	info, err := c1.Validate()
	if err != nil {
		return nil, err
	}
	if k < 0 || k >= len(c1.VanillaProofs) {
		return nil, fmt.Errorf("%w: partition %d of %d", ErrVanilla, k, len(c1.VanillaProofs))
	}
	proofs := c1.VanillaProofs[k]
	c := &Circuit{Config: ConfigFor(info), Challenges: make([]Challenge, len(proofs))}
	fields := []struct {
		dst *fr.Element
		src vanilla.Domain
	}{
		{&c.ReplicaID, c1.ReplicaID}, {&c.CommD, c1.CommD}, {&c.CommR, c1.CommR},
		{&c.CommRLast, proofs[0].CommRLastProof.Root}, {&c.CommC, proofs[0].ReplicaColumnProofs.CX.InclusionProof.Root},
	}
	for _, f := range fields {
		if *f.dst, err = frOf(f.src); err != nil {
			return nil, err
		}
	}
	for i := range proofs {
		p := &proofs[i]
		if p.CommRLastProof.Root != proofs[0].CommRLastProof.Root || p.ReplicaColumnProofs.CX.InclusionProof.Root != proofs[0].ReplicaColumnProofs.CX.InclusionProof.Root {
			return nil, fmt.Errorf("%w: challenge %d: inconsistent comm_r_last or comm_c", ErrVanilla, i)
		}
		if err := challengeFromVanilla(&c.Challenges[i], p); err != nil {
			return nil, fmt.Errorf("%w: challenge %d: %v", ErrVanilla, i, err)
		}
	}
	if err := c.check(); err != nil {
		return nil, err
	}
	return c, nil
}

func challengeFromVanilla(ch *Challenge, p *vanilla.StackedProof) error {
	if len(p.LabelingProofs) == 0 {
		return errors.New("no labeling proofs")
	}
	ch.Node = p.LabelingProofs[0].Node
	var err error
	if ch.DataLeaf, err = frOf(p.CommDProofs.Leaf); err != nil {
		return err
	}
	if ch.CommDPath, err = PathFromVanilla(&p.CommDProofs); err != nil {
		return err
	}
	if ch.CommRLastPath, err = PathFromVanilla(&p.CommRLastProof); err != nil {
		return err
	}
	if ch.CommCPath, err = PathFromVanilla(&p.ReplicaColumnProofs.CX.InclusionProof); err != nil {
		return err
	}
	rcp := &p.ReplicaColumnProofs
	if len(rcp.DrgParents) != len(ch.DrgParents) || len(rcp.ExpParents) != len(ch.ExpParents) {
		return fmt.Errorf("%d drg and %d exp parents", len(rcp.DrgParents), len(rcp.ExpParents))
	}
	for j := range rcp.DrgParents {
		if ch.DrgParents[j], err = columnFromVanilla(&rcp.DrgParents[j]); err != nil {
			return err
		}
	}
	for j := range rcp.ExpParents {
		if ch.ExpParents[j], err = columnFromVanilla(&rcp.ExpParents[j]); err != nil {
			return err
		}
	}
	return nil
}

func columnFromVanilla(cp *vanilla.ColumnProof) (Column, error) {
	col := Column{Rows: make([]fr.Element, len(cp.Rows))}
	for i, r := range cp.Rows {
		v, err := frOf(r)
		if err != nil {
			return Column{}, err
		}
		col.Rows[i] = v
	}
	var err error
	col.Path, err = PathFromVanilla(&cp.InclusionProof)
	return col, err
}

// PathFromVanilla converts a vanilla Merkle proof into the circuit's path: the siblings of
// each level, bottom up, and the leaf index assembled from the per-level positions (what
// the circuit's index bits encode; upstream takes the bits from the same positions).
func PathFromVanilla(p *vanilla.MerkleProof) (Path, error) {
	elems := p.Path()
	out := Path{Siblings: make([][]fr.Element, len(elems))}
	n := 0
	for _, e := range elems {
		n += len(e.Hashes)
	}
	all := make([]fr.Element, n) // one allocation for the path (a Window PoSt partition has 23,490)
	shift := 0
	for i, e := range elems {
		arity := len(e.Hashes) + 1
		if arity < 2 || arity&(arity-1) != 0 || e.Index >= uint64(arity) {
			return Path{}, fmt.Errorf("%w: path level %d: %d siblings, position %d", ErrVanilla, i, len(e.Hashes), e.Index)
		}
		if shift >= 64 {
			return Path{}, fmt.Errorf("%w: path too deep", ErrVanilla)
		}
		out.Index |= e.Index << shift
		shift += bits.TrailingZeros(uint(arity))
		out.Siblings[i], all = all[:len(e.Hashes):len(e.Hashes)], all[len(e.Hashes):]
		for j, h := range e.Hashes {
			v, err := frOf(h)
			if err != nil {
				return Path{}, err
			}
			out.Siblings[i][j] = v
		}
	}
	return out, nil
}

func frOf(d vanilla.Domain) (fr.Element, error) {
	b := [32]byte(d)
	v, err := gadget.FrFromBytesLE(&b)
	if err != nil {
		return fr.Element{}, fmt.Errorf("%w: %v", ErrVanilla, err)
	}
	return v, nil
}
