package sealer

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"strconv"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/filecoin-project/go-state-types/abi"

	"github.com/snarkpipe/snarkpipe/sealer/gadget"
	"github.com/snarkpipe/snarkpipe/sealer/graph"
	"github.com/snarkpipe/snarkpipe/types"
	"github.com/snarkpipe/snarkpipe/types/vanilla"
)

// VerifyC1 checks a C1 output natively, everything the PoRep circuit will enforce and what
// rust-fil-proofs' StackedDrg verifier checks, so that a bad input fails here and not after
// minutes of proving:
//
//   - the shape fits the registered proof (partitions, challenges, layers, tree shapes);
//   - replica_id, comm_d and comm_r are canonical field elements; with sector set,
//     replica_id is the one derived from (prover, sector number, ticket, comm_d, porep_id);
//   - per partition, comm_r = Poseidon2(comm_c, comm_r_last), and every challenge shares
//     comm_c and comm_r_last;
//   - per challenge (re-derived as the proof type requires: from the seed, or from comm_r
//     for synthetic and NI proofs): the comm_d path opens the challenge and hashes to comm_d;
//     the comm_r_last path opens it and hashes to comm_r_last; the columns of the challenge
//     and of its 6 DRG and 8 expander parents open the right nodes, hash to their tree C
//     leaves and paths to comm_c; every labeling proof names its layer and the challenge,
//     carries exactly the parent labels the columns hold (the circuit takes them from the
//     columns), and hashes to the challenge's label of that layer; the encoding proof repeats
//     the last layer and label_L + data equals the tree R leaf.
//
// It returns the proof type's table row. Failures are *VerifyError (errors.Is
// ErrInvalidVanilla) naming the partition, challenge and check.
func VerifyC1(out *vanilla.SealCommitPhase1Output, sector *abi.SectorID) (*types.SealProofInfo, error) {
	info, err := out.Validate()
	if err != nil {
		return nil, porepErr(-1, -1, nil, fail(CheckShape, "", "%v", err))
	}
	for _, v := range []struct {
		name string
		d    *vanilla.Domain
	}{{"replica_id", &out.ReplicaID}, {"comm_d", &out.CommD}, {"comm_r", &out.CommR}} {
		if _, f := toFr(v.d, v.name); f != nil {
			return nil, porepErr(-1, -1, nil, f)
		}
	}
	if sector != nil {
		want := types.ReplicaID(types.ProverID(sector.Miner), sector.Number, out.Ticket, out.CommD, info.PoRepID)
		if vanilla.Domain(want) != out.ReplicaID {
			return nil, porepErr(-1, -1, nil, fail(CheckReplicaID, "replica_id", "C1 carries %x, sector %d of miner %d derives %x", out.ReplicaID[:], sector.Number, sector.Miner, want[:]))
		}
	}
	g, err := graph.ForSealProof(info)
	if err != nil {
		return nil, porepErr(-1, -1, nil, fail(CheckShape, "graph", "%v", err))
	}
	tr := treeR(info.SectorShape)
	tr.memo = newNodeMemo()
	v := &c1Verifier{info: info, graph: g, out: out, treeD: treeD(info.SectorShape), treeR: tr}
	if err := v.preparePartitions(); err != nil {
		return nil, err
	}
	perPartition := info.ChallengesPerPartition
	err = forEachIndex(info.PartitionCount*perPartition, func(j int) error {
		k, i := j/perPartition, j%perPartition
		c := v.challenges[k][i]
		if f := v.verifyChallenge(&out.VanillaProofs[k][i], k, c); f != nil {
			return porepErr(k, i, &c, f)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return info, nil
}

// c1Verifier holds what every challenge of one C1 output is checked against.
type c1Verifier struct {
	info         *types.SealProofInfo
	graph        *graph.Graph
	out          *vanilla.SealCommitPhase1Output
	treeD, treeR merkleTree
	challenges   [][]uint64
	commC        []vanilla.Domain // per partition
	commRLast    []vanilla.Domain // per partition
}

// preparePartitions derives every partition's challenges and checks its comm_r.
func (v *c1Verifier) preparePartitions() error {
	out := v.out
	for k, proofs := range out.VanillaProofs {
		ch, err := graph.PoRepChallenges(v.info, out.ReplicaID, out.CommR, out.Seed, k)
		if err != nil {
			return porepErr(k, -1, nil, fail(CheckShape, "challenges", "%v", err))
		}
		v.challenges = append(v.challenges, ch)
		commC := proofs[0].ReplicaColumnProofs.CX.InclusionProof.Root
		commRLast := proofs[0].CommRLastProof.Root
		got, f := commR(&commC, &commRLast)
		if f != nil {
			return porepErr(k, 0, nil, f)
		}
		if got != out.CommR {
			return porepErr(k, -1, nil, fail(CheckCommR, "", "Poseidon2(comm_c, comm_r_last) = %x, comm_r %x", got[:], out.CommR[:]))
		}
		v.commC = append(v.commC, commC)
		v.commRLast = append(v.commRLast, commRLast)
	}
	return nil
}

func (v *c1Verifier) verifyChallenge(p *vanilla.StackedProof, k int, c uint64) *failure {
	if p.CommDProofs.Root != v.out.CommD {
		return fail(CheckRoot, "comm_d path", "root %x, comm_d %x", p.CommDProofs.Root[:], v.out.CommD[:])
	}
	if f := v.treeD.verify(&p.CommDProofs, c, "comm_d path"); f != nil {
		return f
	}
	if p.CommRLastProof.Root != v.commRLast[k] {
		return fail(CheckSameRoots, "comm_r_last path", "root %x, partition's comm_r_last %x", p.CommRLastProof.Root[:], v.commRLast[k][:])
	}
	if f := v.treeR.verify(&p.CommRLastProof, c, "comm_r_last path"); f != nil {
		return f
	}
	if f := v.verifyColumns(&p.ReplicaColumnProofs, k, c); f != nil {
		return f
	}
	if f := v.verifyLabels(p, c); f != nil {
		return f
	}
	return v.verifyEncoding(p, c)
}

// verifyColumns checks the challenge's column and its 14 parents' columns against tree C.
func (v *c1Verifier) verifyColumns(rcp *vanilla.ReplicaColumnProof, k int, c uint64) *failure {
	var parents [graph.Degree]uint32
	v.graph.Parents(uint32(c), &parents)
	if f := v.verifyColumn(&rcp.CX, k, c, "challenge column"); f != nil {
		return f
	}
	for j := range rcp.DrgParents {
		if f := v.verifyColumn(&rcp.DrgParents[j], k, uint64(parents[j]), drgWhere[j]); f != nil {
			return f
		}
	}
	for j := range rcp.ExpParents {
		if f := v.verifyColumn(&rcp.ExpParents[j], k, uint64(parents[graph.BaseDegree+j]), expWhere[j]); f != nil {
			return f
		}
	}
	return nil
}

var drgWhere, expWhere = columnNames("drg parent", graph.BaseDegree), columnNames("exp parent", graph.ExpDegree)

func columnNames(prefix string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%s %d column", prefix, i)
	}
	return out
}

func (v *c1Verifier) verifyColumn(col *vanilla.ColumnProof, k int, node uint64, where string) *failure {
	if uint64(col.Index) != node {
		return fail(CheckChallenge, where, "column of node %d, want %d", col.Index, node)
	}
	if col.InclusionProof.Root != v.commC[k] {
		return fail(CheckSameRoots, where, "root %x, partition's comm_c %x", col.InclusionProof.Root[:], v.commC[k][:])
	}
	var rows [11]fr.Element
	for l := range col.Rows {
		var f *failure
		if rows[l], f = toFr(&col.Rows[l], where); f != nil {
			return f
		}
	}
	h, err := poseidonHash(rows[:len(col.Rows)])
	if err != nil {
		return fail(CheckShape, where, "%v", err)
	}
	if hb := vanilla.Domain(gadget.FrToBytesLE(&h)); hb != col.InclusionProof.Leaf {
		return fail(CheckColumnHash, where, "column hashes to %x, tree C leaf %x", hb[:], col.InclusionProof.Leaf[:])
	}
	return v.treeR.verify(&col.InclusionProof, node, where)
}

// expectedParents returns the 37 parent labels of layer l (1-based) as the circuit takes
// them from the columns: the 6 DRG parents' row l (and, from layer 2 on, the 8 expander
// parents' row l−1), cycled to 37.
func expectedParents(rcp *vanilla.ReplicaColumnProof, l int) [vanilla.TotalParents]*vanilla.Domain {
	var src [graph.Degree]*vanilla.Domain
	n := 0
	for j := range rcp.DrgParents {
		src[n] = &rcp.DrgParents[j].Rows[l-1]
		n++
	}
	if l > 1 {
		for j := range rcp.ExpParents {
			src[n] = &rcp.ExpParents[j].Rows[l-2]
			n++
		}
	}
	var out [vanilla.TotalParents]*vanilla.Domain
	for i := range out {
		out[i] = src[i%n]
	}
	return out
}

func (v *c1Verifier) verifyLabels(p *vanilla.StackedProof, c uint64) *failure {
	rcp := &p.ReplicaColumnProofs
	for l := 1; l <= v.info.Layers; l++ {
		lp := &p.LabelingProofs[l-1]
		where := "labeling proof layer " + strconv.Itoa(l)
		if f := checkLabelingProof(lp, rcp, l, c, where); f != nil {
			return f
		}
		if label := Label(&v.out.ReplicaID, uint32(l), c, lp.Parents); label != rcp.CX.Rows[l-1] {
			return fail(CheckLabel, where, "label hashes to %x, column holds %x", label[:], rcp.CX.Rows[l-1][:])
		}
	}
	return nil
}

func checkLabelingProof(lp *vanilla.LabelingProof, rcp *vanilla.ReplicaColumnProof, l int, c uint64, where string) *failure {
	if lp.LayerIndex != uint32(l) || lp.Node != c {
		return fail(CheckLabelingProof, where, "proof for layer %d node %d, want layer %d node %d", lp.LayerIndex, lp.Node, l, c)
	}
	want := expectedParents(rcp, l)
	for i := range lp.Parents {
		if lp.Parents[i] != *want[i] {
			return fail(CheckLabelingProof, where, "parent %d is %x, the columns hold %x", i, lp.Parents[i][:], want[i][:])
		}
	}
	return nil
}

func (v *c1Verifier) verifyEncoding(p *vanilla.StackedProof, c uint64) *failure {
	ep := &p.EncodingProof
	layers := v.info.Layers
	if f := checkLabelingProof(ep, &p.ReplicaColumnProofs, layers, c, "encoding proof"); f != nil {
		return f
	}
	key := Label(&v.out.ReplicaID, uint32(layers), c, ep.Parents)
	keyFr, f := toFr(&key, "encoding key")
	if f != nil {
		return f
	}
	data, f := toFr(&p.CommDProofs.Leaf, "comm_d leaf")
	if f != nil {
		return f
	}
	var enc fr.Element
	enc.Add(&keyFr, &data)
	if got := vanilla.Domain(gadget.FrToBytesLE(&enc)); got != p.CommRLastProof.Leaf {
		return fail(CheckEncoding, "encoding proof", "label_%d + data = %x, tree R leaf %x", layers, got[:], p.CommRLastProof.Leaf[:])
	}
	return nil
}

// Label is the SDR label of node at layer (1-based) from its 37 parent labels:
// SHA-256(replica_id ‖ u32_be(layer) ‖ u64_be(node) ‖ 20 zero bytes ‖ parents) with the top
// two bits cleared (rust-fil-proofs LabelingProof::create_label).
func Label(replicaID *vanilla.Domain, layer uint32, node uint64, parents []vanilla.Domain) vanilla.Domain {
	var head [64]byte
	copy(head[:32], replicaID[:])
	binary.BigEndian.PutUint32(head[32:], layer)
	binary.BigEndian.PutUint64(head[36:], node)
	h := sha256.New()
	h.Write(head[:])
	for i := range parents {
		h.Write(parents[i][:])
	}
	var out vanilla.Domain
	h.Sum(out[:0])
	out[31] &= 0x3f
	return out
}

func porepErr(partition, challenge int, node *uint64, f *failure) *VerifyError {
	e := &VerifyError{Kind: KindPoRep, Partition: partition, Challenge: challenge, Position: -1, Check: f.check, Where: f.where, Detail: f.detail}
	if node != nil {
		e.HasNode, e.Node = true, *node
	}
	return e
}
