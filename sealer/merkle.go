package sealer

import (
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/snarkpipe/snarkpipe/sealer/gadget"
	"github.com/snarkpipe/snarkpipe/types"
	"github.com/snarkpipe/snarkpipe/types/vanilla"
)

// failure is a check that failed, before it is located (partition, challenge, ...).
type failure struct {
	check  Check
	where  string
	detail string
}

func fail(check Check, where, format string, args ...any) *failure {
	return &failure{check: check, where: where, detail: fmt.Sprintf(format, args...)}
}

// merkleTree describes one kind of tree a vanilla proof opens: its proof shape and whether
// nodes are hashed with SHA-256 (tree D) or Poseidon (trees C and R).
type merkleTree struct {
	depth vanilla.TreeDepth
	sha   bool
	memo  *nodeMemo // optional: shares arity-8 node hashes between the paths of one call
}

func treeD(s types.SectorShape) merkleTree {
	return merkleTree{depth: vanilla.TreeDDepth(s), sha: true}
}
func treeR(s types.SectorShape) merkleTree { return merkleTree{depth: vanilla.TreeRDepth(s)} }

// levels returns each path level's elements with its arity, leaf to root.
func levels(p *vanilla.MerkleProof, shape types.TreeShape) [3]struct {
	path  []vanilla.PathElement
	arity int
} {
	return [3]struct {
		path  []vanilla.PathElement
		arity int
	}{{p.Base, shape.Base}, {p.Sub, shape.Sub}, {p.Top, shape.Top}}
}

// LeafIndex is the leaf a Merkle proof opens: each level's index is one digit, least
// significant first, in the arity of its level. The proof must already fit its shape.
func LeafIndex(p *vanilla.MerkleProof, shape types.TreeShape) uint64 {
	var idx, scale uint64 = 0, 1
	for _, lv := range levels(p, shape) {
		for _, e := range lv.path {
			idx += e.Index * scale
			scale *= uint64(lv.arity)
		}
	}
	return idx
}

// verify checks that p has the tree's shape, opens leaf node, and that its path hashes from
// its leaf to its claimed root. It does not compare the root with a commitment.
func (t merkleTree) verify(p *vanilla.MerkleProof, node uint64, where string) *failure {
	if err := t.depth.CheckShape(p); err != nil {
		return fail(CheckShape, where, "%v", err)
	}
	if got := LeafIndex(p, t.depth.Shape); got != node {
		return fail(CheckChallenge, where, "path opens node %d, want %d", got, node)
	}
	root, f := t.computeRoot(p, where)
	if f != nil {
		return f
	}
	if root != p.Root {
		return fail(CheckPath, where, "path hashes to %x, proof claims root %x", root[:], p.Root[:])
	}
	return nil
}

// computeRoot hashes p's leaf up its path.
func (t merkleTree) computeRoot(p *vanilla.MerkleProof, where string) (vanilla.Domain, *failure) {
	cur := p.Leaf
	var children [8]vanilla.Domain
	for _, lv := range levels(p, t.depth.Shape) {
		for h, e := range lv.path {
			n := 0
			for j := 0; j < lv.arity; j++ {
				if uint64(j) == e.Index {
					children[j] = cur
					continue
				}
				children[j] = e.Hashes[n]
				n++
			}
			var f *failure
			if cur, f = t.hashNode(children[:lv.arity], where, h); f != nil {
				return cur, f
			}
		}
	}
	return cur, nil
}

func (t merkleTree) hashNode(children []vanilla.Domain, where string, height int) (vanilla.Domain, *failure) {
	if t.sha {
		return gadget.NodeHash((*[32]byte)(&children[0]), (*[32]byte)(&children[1])), nil
	}
	if t.memo != nil && len(children) == 8 {
		return t.memo.hash8((*[8]vanilla.Domain)(children), where, height)
	}
	return poseidonNode(children, where, height)
}

// poseidonNode hashes a node's children with the Poseidon of their arity.
func poseidonNode(children []vanilla.Domain, where string, height int) (vanilla.Domain, *failure) {
	var in [8]fr.Element
	for i := range children {
		e, err := fr.LittleEndian.Element((*[32]byte)(&children[i]))
		if err != nil {
			return vanilla.Domain{}, fail(CheckCanonical, where, "node %d at height %d: %v", i, height, err)
		}
		in[i] = e
	}
	out, err := poseidonHash(in[:len(children)])
	if err != nil {
		return vanilla.Domain{}, fail(CheckShape, where, "%v", err)
	}
	return vanilla.Domain(gadget.FrToBytesLE(&out)), nil
}

// poseidonHash is the MerkleTree Poseidon of the given arity (2, 4, 8 or 11).
func poseidonHash(in []fr.Element) (fr.Element, error) {
	switch len(in) {
	case 2:
		return gadget.HashPoseidon2(&in[0], &in[1]), nil
	case 4:
		return gadget.HashPoseidon4((*[4]fr.Element)(in)), nil
	case 8:
		return gadget.HashPoseidon8((*[8]fr.Element)(in)), nil
	case 11:
		return gadget.HashPoseidon11((*[11]fr.Element)(in)), nil
	}
	c, err := gadget.PoseidonFor(len(in))
	if err != nil {
		return fr.Element{}, err
	}
	var out fr.Element
	err = c.Hash(&out, in)
	return out, err
}

// toFr reads a canonical field element.
func toFr(d *vanilla.Domain, where string) (fr.Element, *failure) {
	e, err := fr.LittleEndian.Element((*[32]byte)(d))
	if err != nil {
		return e, fail(CheckCanonical, where, "%x: %v", d[:], err)
	}
	return e, nil
}

// commR computes Poseidon2(comm_c, comm_r_last).
func commR(commC, commRLast *vanilla.Domain) (vanilla.Domain, *failure) {
	c, f := toFr(commC, "comm_c")
	if f != nil {
		return vanilla.Domain{}, f
	}
	r, f := toFr(commRLast, "comm_r_last")
	if f != nil {
		return vanilla.Domain{}, f
	}
	h := gadget.HashPoseidon2(&c, &r)
	return vanilla.Domain(gadget.FrToBytesLE(&h)), nil
}
