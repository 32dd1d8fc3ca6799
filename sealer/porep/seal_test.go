package porep

import (
	"encoding/binary"
	"math/rand/v2"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/snarkpipe/snarkpipe/sealer/gadget"
	"github.com/snarkpipe/snarkpipe/sealer/graph"
	"github.com/snarkpipe/snarkpipe/types"
	"github.com/snarkpipe/snarkpipe/types/vanilla"
)

// testSeal is a 2 KiB sector sealed by a minimal test sealer written from spec §7.3 (the
// reference sealer lives in sealer/refseal): labels, columns, trees D, C and R, and the C1
// output for the given seed. It exists so the circuit can be checked against real
// commitments; it is not fast and handles only single-level Poseidon-8 trees of 64 nodes.
type testSeal struct {
	info                    *types.SealProofInfo
	g                       *graph.Graph
	replicaID, seed         [32]byte
	data                    []fr.Element   // tree D leaves
	labels                  [][]fr.Element // labels[l-1][v]
	treeD                   [][]fr.Element // levels, leaves first
	treeC, treeR            [][]fr.Element // Poseidon-8 levels
	commD, commC, commRLast fr.Element
	commR                   fr.Element
}

func sealTestSector(t testing.TB, info *types.SealProofInfo, rng *rand.Rand) *testSeal {
	t.Helper()
	g, err := graph.ForSealProof(info)
	if err != nil {
		t.Fatal(err)
	}
	s := &testSeal{info: info, g: g}
	s.replicaID = randomDomain(rng)
	s.seed = randomDomain(rng)
	n := int(info.Nodes())
	s.data = make([]fr.Element, n)
	for i := range s.data {
		d := randomDomain(rng)
		s.data[i] = mustFr(t, d)
	}
	s.treeD = buildTree(s.data, 2, func(c []fr.Element) fr.Element { return gadget.NodeHashFr(&c[0], &c[1]) })
	s.commD = s.treeD[len(s.treeD)-1][0]
	s.labels = make([][]fr.Element, info.Layers)
	for l := 1; l <= info.Layers; l++ {
		s.labels[l-1] = make([]fr.Element, n)
		for v := range n {
			s.labels[l-1][v] = s.label(l, uint64(v))
		}
	}
	cols := make([]fr.Element, n)
	reps := make([]fr.Element, n)
	for v := range n {
		cols[v] = s.columnHash(uint64(v))
		reps[v].Add(&s.labels[info.Layers-1][v], &s.data[v])
	}
	hash8 := func(c []fr.Element) fr.Element { return gadget.HashPoseidon8((*[8]fr.Element)(c)) }
	s.treeC, s.treeR = buildTree(cols, 8, hash8), buildTree(reps, 8, hash8)
	s.commC, s.commRLast = s.treeC[len(s.treeC)-1][0], s.treeR[len(s.treeR)-1][0]
	s.commR = gadget.HashPoseidon2(&s.commC, &s.commRLast)
	return s
}

func randomDomain(rng *rand.Rand) [32]byte {
	var b [32]byte
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
	b[31] &= 0x3f
	return b
}

func mustFr(t testing.TB, b [32]byte) fr.Element {
	t.Helper()
	v, err := gadget.FrFromBytesLE(&b)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func buildTree(leaves []fr.Element, arity int, hash func([]fr.Element) fr.Element) [][]fr.Element {
	levels := [][]fr.Element{leaves}
	for cur := leaves; len(cur) > 1; {
		next := make([]fr.Element, len(cur)/arity)
		for i := range next {
			next[i] = hash(cur[i*arity : (i+1)*arity])
		}
		levels = append(levels, next)
		cur = next
	}
	return levels
}

// parentLabels returns the 37 labels hashed into label(l, v), in hashing order.
func (s *testSeal) parentLabels(l int, v uint64) []fr.Element {
	var ps [graph.Degree]uint32
	s.g.Parents(uint32(v), &ps)
	var parents []fr.Element
	for _, p := range ps[:graph.BaseDegree] {
		parents = append(parents, s.labels[l-1][p])
	}
	if l > 1 {
		for _, p := range ps[graph.BaseDegree:] {
			parents = append(parents, s.labels[l-2][p])
		}
	}
	out := make([]fr.Element, 0, totalParents)
	for len(out)+len(parents) <= totalParents {
		out = append(out, parents...)
	}
	return append(out, parents[:totalParents-len(out)]...)
}

// label is SHA-256(replica_id ‖ u32_be(l) ‖ u64_be(v) ‖ 0^20 ‖ 37 parent labels), trimmed;
// node 0 hashes only the first 64 bytes.
func (s *testSeal) label(l int, v uint64) fr.Element {
	msg := append([]byte{}, s.replicaID[:]...)
	msg = binary.BigEndian.AppendUint32(msg, uint32(l))
	msg = binary.BigEndian.AppendUint64(msg, v)
	msg = append(msg, make([]byte, 20)...)
	if v > 0 {
		for _, p := range s.parentLabels(l, v) {
			b := gadget.FrToBytesLE(&p)
			msg = append(msg, b[:]...)
		}
	}
	d := gadget.Sha254(msg)
	out, _ := gadget.FrFromBytesLE(&d)
	return out
}

func (s *testSeal) column(v uint64) []fr.Element {
	col := make([]fr.Element, s.info.Layers)
	for l := range col {
		col[l] = s.labels[l][v]
	}
	return col
}

func (s *testSeal) columnHash(v uint64) fr.Element {
	col := s.column(v)
	c, _ := gadget.PoseidonFor(len(col))
	var h fr.Element
	if err := c.Hash(&h, col); err != nil {
		panic(err)
	}
	return h
}

func dom(x fr.Element) vanilla.Domain { return vanilla.Domain(gadget.FrToBytesLE(&x)) }

// merkleProof is the vanilla proof of leaf idx in a tree built by buildTree.
func merkleProof(levels [][]fr.Element, arity int, idx uint64) vanilla.MerkleProof {
	p := vanilla.MerkleProof{Kind: vanilla.ProofSingle, Root: dom(levels[len(levels)-1][0]), Leaf: dom(levels[0][idx])}
	pos := idx
	for _, lv := range levels[:len(levels)-1] {
		e := vanilla.PathElement{Index: pos % uint64(arity)}
		group := pos / uint64(arity) * uint64(arity)
		for j := group; j < group+uint64(arity); j++ {
			if j != pos {
				e.Hashes = append(e.Hashes, dom(lv[j]))
			}
		}
		p.Base = append(p.Base, e)
		pos /= uint64(arity)
	}
	return p
}

func (s *testSeal) columnProof(v uint64) vanilla.ColumnProof {
	cp := vanilla.ColumnProof{Index: uint32(v), InclusionProof: merkleProof(s.treeC, 8, v)}
	for _, x := range s.column(v) {
		cp.Rows = append(cp.Rows, dom(x))
	}
	return cp
}

// stackedProof is the vanilla proof of one challenge.
func (s *testSeal) stackedProof(c uint64) vanilla.StackedProof {
	var ps [graph.Degree]uint32
	s.g.Parents(uint32(c), &ps)
	p := vanilla.StackedProof{
		CommDProofs:    merkleProof(s.treeD, 2, c),
		CommRLastProof: merkleProof(s.treeR, 8, c),
	}
	p.ReplicaColumnProofs.CX = s.columnProof(c)
	for _, q := range ps[:graph.BaseDegree] {
		p.ReplicaColumnProofs.DrgParents = append(p.ReplicaColumnProofs.DrgParents, s.columnProof(uint64(q)))
	}
	for _, q := range ps[graph.BaseDegree:] {
		p.ReplicaColumnProofs.ExpParents = append(p.ReplicaColumnProofs.ExpParents, s.columnProof(uint64(q)))
	}
	for l := 1; l <= s.info.Layers; l++ {
		lp := vanilla.LabelingProof{LayerIndex: uint32(l), Node: c}
		for _, x := range s.parentLabels(l, c) {
			lp.Parents = append(lp.Parents, dom(x))
		}
		p.LabelingProofs = append(p.LabelingProofs, lp)
	}
	p.EncodingProof = p.LabelingProofs[s.info.Layers-1]
	return p
}

// c1 is the sector's C1 output, every partition, round-tripped through the JSON codec.
func (s *testSeal) c1(t testing.TB) *vanilla.SealCommitPhase1Output {
	t.Helper()
	out := &vanilla.SealCommitPhase1Output{
		RegisteredProof: s.info.RustName, ShapeName: s.info.ShapeName,
		CommR: dom(s.commR), CommD: dom(s.commD), ReplicaID: s.replicaID, Seed: s.seed,
	}
	for k := range s.info.PartitionCount {
		challenges, err := graph.PoRepChallenges(s.info, s.replicaID, [32]byte(out.CommR), s.seed, k)
		if err != nil {
			t.Fatal(err)
		}
		var part []vanilla.StackedProof
		for _, c := range challenges {
			part = append(part, s.stackedProof(c))
		}
		out.VanillaProofs = append(out.VanillaProofs, part)
	}
	decoded, err := vanilla.DecodeC1(vanilla.EncodeC1(out))
	if err != nil {
		t.Fatal(err)
	}
	return decoded
}
