package refseal

import (
	"fmt"

	"github.com/snarkpipe/snarkpipe/sealer/graph"
	"github.com/snarkpipe/snarkpipe/types"
	"github.com/snarkpipe/snarkpipe/types/vanilla"
)

// replicaView is what a C1 output is built from: labels and tree openings of any node. The
// dense Sector and the synthetic sparse replica both provide it.
type replicaView interface {
	label(layer int, node uint64) vanilla.Domain // layer is 1-based
	proofD(node uint64) vanilla.MerkleProof
	proofC(node uint64) vanilla.MerkleProof
	proofR(node uint64) vanilla.MerkleProof
}

// c1Public is the public side of a C1 output.
type c1Public struct {
	info                    *types.SealProofInfo
	replicaID, commD, commR vanilla.Domain
	seed, ticket            [32]byte
}

// buildC1 opens every challenge of every partition, derived as the proof type requires, in
// rust-fil-proofs' layout (labeling proofs and the encoding proof are built from the columns
// exactly as Proof::from_parts does).
func buildC1(v replicaView, g *graph.Graph, pub *c1Public) (*vanilla.SealCommitPhase1Output, error) {
	info := pub.info
	out := &vanilla.SealCommitPhase1Output{
		RegisteredProof: info.RustName, ShapeName: info.ShapeName,
		CommR: pub.commR, CommD: pub.commD, ReplicaID: pub.replicaID,
		Seed: vanilla.Domain(pub.seed), Ticket: vanilla.Domain(pub.ticket),
	}
	for k := 0; k < info.PartitionCount; k++ {
		challenges, err := graph.PoRepChallenges(info, pub.replicaID, pub.commR, pub.seed, k)
		if err != nil {
			return nil, err
		}
		part := make([]vanilla.StackedProof, len(challenges))
		for i, c := range challenges {
			part[i] = stackedProof(v, g, info.Layers, c)
		}
		out.VanillaProofs = append(out.VanillaProofs, part)
	}
	return out, nil
}

func columnProof(v replicaView, layers int, node uint64) vanilla.ColumnProof {
	rows := make([]vanilla.Domain, layers)
	for l := range rows {
		rows[l] = v.label(l+1, node)
	}
	return vanilla.ColumnProof{Index: uint32(node), Rows: rows, InclusionProof: v.proofC(node)}
}

func stackedProof(v replicaView, g *graph.Graph, layers int, c uint64) vanilla.StackedProof {
	var parents [graph.Degree]uint32
	g.Parents(uint32(c), &parents)
	p := vanilla.StackedProof{CommDProofs: v.proofD(c), CommRLastProof: v.proofR(c)}
	rcp := &p.ReplicaColumnProofs
	rcp.CX = columnProof(v, layers, c)
	for j := 0; j < graph.BaseDegree; j++ {
		rcp.DrgParents = append(rcp.DrgParents, columnProof(v, layers, uint64(parents[j])))
	}
	for j := graph.BaseDegree; j < graph.Degree; j++ {
		rcp.ExpParents = append(rcp.ExpParents, columnProof(v, layers, uint64(parents[j])))
	}
	for l := 1; l <= layers; l++ {
		p.LabelingProofs = append(p.LabelingProofs, vanilla.LabelingProof{Parents: labelingParents(rcp, l), LayerIndex: uint32(l), Node: c})
	}
	last := p.LabelingProofs[layers-1]
	p.EncodingProof = vanilla.LabelingProof{Parents: append([]vanilla.Domain(nil), last.Parents...), LayerIndex: last.LayerIndex, Node: last.Node}
	return p
}

// labelingParents lists layer l's 37 parent labels from the parent columns: DRG parents at
// layer l, then (l > 1) expander parents at layer l−1, cycled.
func labelingParents(rcp *vanilla.ReplicaColumnProof, l int) []vanilla.Domain {
	src := make([]vanilla.Domain, 0, graph.Degree)
	for _, col := range rcp.DrgParents {
		src = append(src, col.Rows[l-1])
	}
	if l > 1 {
		for _, col := range rcp.ExpParents {
			src = append(src, col.Rows[l-2])
		}
	}
	out := make([]vanilla.Domain, vanilla.TotalParents)
	for i := range out {
		out[i] = src[i%len(src)]
	}
	return out
}

// Sector as a replicaView.
func (s *Sector) label(layer int, node uint64) vanilla.Domain { return s.labels[layer-1][node] }
func (s *Sector) proofD(node uint64) vanilla.MerkleProof      { return s.treeD.Proof(node) }
func (s *Sector) proofC(node uint64) vanilla.MerkleProof      { return s.treeC.Proof(node) }
func (s *Sector) proofR(node uint64) vanilla.MerkleProof      { return s.treeR.Proof(node) }

// C1 returns the sector's C1 output for an interactive seed. Synthetic and NI proof types
// derive their challenges from comm_r as well; the seed still selects synthetic challenges.
func (s *Sector) C1(seed [32]byte) (*vanilla.SealCommitPhase1Output, error) {
	g, err := graph.ForSealProof(s.Info)
	if err != nil {
		return nil, err
	}
	pub := &c1Public{info: s.Info, replicaID: s.ReplicaID, commD: s.CommD, commR: s.CommR, seed: seed, ticket: s.Ticket}
	out, err := buildC1(s, g, pub)
	if err != nil {
		return nil, fmt.Errorf("refseal: C1 of sector %d: %w", s.ID.Number, err)
	}
	return out, nil
}
