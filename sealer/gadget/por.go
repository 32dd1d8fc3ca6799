package gadget

import (
	"errors"
	"fmt"
	"math/bits"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/snarkpipe/snarkpipe/prover/r1cs"
)

// Merkle inclusion (rfp storage-proofs-core gadgets/por.rs, spec §6).

// ErrPath reports a Merkle path that does not fit the tree shape.
var ErrPath = errors.New("gadget: Merkle path does not fit the tree shape")

// TreeHasher names how a tree hashes a node's children.
type TreeHasher uint8

const (
	// TreePoseidon hashes children with the arity-n MerkleTree Poseidon (trees R and C).
	TreePoseidon TreeHasher = iota
	// TreeSha256 hashes the children's LE reprs with SHA-256 trimmed to 254 bits (tree D).
	TreeSha256
)

func (h TreeHasher) String() string {
	if h == TreeSha256 {
		return "sha256"
	}
	return "poseidon"
}

// TreeShape is a Merkle tree shape base-sub-top (rfp MerkleTreeWrapper<H, U, V, W>): Base
// is the base arity, Sub and Top are 0 when absent. The leaves are split into Sub·Top
// consecutive base trees; Sub base roots hash into a sub root and Top sub roots into the
// root. Every non-zero arity is a power of two, and Top needs Sub.
type TreeShape struct {
	Hasher         TreeHasher
	Base, Sub, Top int
}

// Levels returns the arity of every path level, bottom up, for a tree with the given
// number of base levels.
func (s TreeShape) Levels(baseLevels int) []int {
	out := make([]int, 0, baseLevels+2)
	for range baseLevels {
		out = append(out, s.Base)
	}
	if s.Sub > 0 {
		out = append(out, s.Sub)
	}
	if s.Top > 0 {
		out = append(out, s.Top)
	}
	return out
}

// Validate checks the arities.
func (s TreeShape) Validate() error {
	pow2 := func(a int) bool { return a >= 2 && a&(a-1) == 0 }
	switch {
	case !pow2(s.Base):
		return fmt.Errorf("%w: base arity %d is not a power of two ≥ 2", ErrPath, s.Base)
	case s.Sub != 0 && !pow2(s.Sub):
		return fmt.Errorf("%w: sub arity %d is not a power of two", ErrPath, s.Sub)
	case s.Top != 0 && !pow2(s.Top):
		return fmt.Errorf("%w: top arity %d is not a power of two", ErrPath, s.Top)
	case s.Top != 0 && s.Sub == 0:
		return fmt.Errorf("%w: a top tree needs a sub tree", ErrPath)
	}
	return nil
}

// checkPath checks that path has one level per arity (at least one base level) with
// arity − 1 siblings each, and returns the level arities.
func (s TreeShape) checkPath(siblingCounts []int) ([]int, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	extra := 0
	if s.Sub > 0 {
		extra++
	}
	if s.Top > 0 {
		extra++
	}
	if len(siblingCounts) <= extra {
		return nil, fmt.Errorf("%w: %d levels for shape %d-%d-%d", ErrPath, len(siblingCounts), s.Base, s.Sub, s.Top)
	}
	levels := s.Levels(len(siblingCounts) - extra)
	for i, a := range levels {
		if siblingCounts[i] != a-1 {
			return nil, fmt.Errorf("%w: level %d has %d siblings, arity %d", ErrPath, i, siblingCounts[i], a)
		}
	}
	return levels, nil
}

// indexBits is the total number of leaf-index bits the levels consume.
func indexBits(levels []int) int {
	n := 0
	for _, a := range levels {
		n += bits.TrailingZeros(uint(a))
	}
	return n
}

// hashNode hashes one level's children in circuit.
func (s TreeShape) hashNode(cs r1cs.ConstraintSystem, children []AllocatedNum) (AllocatedNum, error) {
	if s.Hasher == TreeSha256 {
		return Sha256MultiLeafCircuit(cs, children)
	}
	c, err := PoseidonFor(len(children))
	if err != nil {
		return AllocatedNum{}, err
	}
	return PoseidonHashCircuit(cs, c, children)
}

// hashNodeNative is hashNode's native twin.
func (s TreeShape) hashNodeNative(children []fr.Element) (fr.Element, error) {
	if s.Hasher == TreeSha256 {
		return Sha254Fr(children...), nil
	}
	c, err := PoseidonFor(len(children))
	if err != nil {
		return fr.Element{}, err
	}
	var out fr.Element
	err = c.Hash(&out, children)
	return out, err
}

// Root is a value that is either already allocated (rfp Root::Var, reused) or still a
// plain value (Root::Val, allocated as one aux when needed).
type Root struct {
	num       AllocatedNum
	allocated bool
}

// RootVar wraps an allocated number.
func RootVar(n AllocatedNum) Root { return Root{num: n, allocated: true} }

// RootVal wraps a value to be allocated.
func RootVal(v fr.Element) Root { return Root{num: AllocatedNum{Value: v}} }

// Value returns the root's value.
func (r Root) Value() fr.Element { return r.num.Value }

// Allocated returns the variable, allocating it first for a RootVal.
func (r Root) Allocated(cs r1cs.ConstraintSystem) AllocatedNum {
	if r.allocated {
		return r.num
	}
	return AllocNum(cs, r.num.Value)
}

// PoR is one Merkle inclusion proof in circuit (rfp PoRCircuit). Path holds, bottom up
// (base levels, then sub, then top), the sibling values of each level in order; the
// position of the current node at each level comes from LeafIndex (its bits, LSB first,
// are the concatenated level indices).
type PoR struct {
	Shape     TreeShape
	Leaf      Root
	LeafIndex uint64
	Path      [][]fr.Element
	Root      Root
	// Private keeps the root out of the public inputs. Filecoin always sets it.
	Private bool
}

// Synthesize emits the inclusion proof in upstream's order: the leaf (if a value); per
// level k index bits (AllocatedBit, LSB first), the arity − 1 siblings (aux), insert, the
// node hash; then pack_into_inputs of all index bits (one public input = the leaf index);
// then the root (if a value) and the row computed_root | ONE | root; then inputize(root)
// unless Private.
func (p *PoR) Synthesize(cs r1cs.ConstraintSystem) error {
	counts := make([]int, len(p.Path))
	for i := range p.Path {
		counts[i] = len(p.Path[i])
	}
	levels, err := p.Shape.checkPath(counts)
	if err != nil {
		return err
	}
	if nb := indexBits(levels); nb < 64 && p.LeafIndex>>nb != 0 {
		return fmt.Errorf("%w: leaf index %d needs more than %d bits", ErrPath, p.LeafIndex, nb)
	}
	cur := p.Leaf.Allocated(cs)
	allBits := make([]Boolean, 0, indexBits(levels))
	index := p.LeafIndex
	siblings := make([]AllocatedNum, 0, 8)
	for i, arity := range levels {
		k := bits.TrailingZeros(uint(arity))
		levelBits := make([]Boolean, k)
		for j := range levelBits {
			levelBits[j] = AllocBit(cs, index>>j&1 == 1).Is()
		}
		index >>= k
		allBits = append(allBits, levelBits...)
		siblings = siblings[:0]
		for _, v := range p.Path[i] {
			siblings = append(siblings, AllocNum(cs, v))
		}
		inserted, err := Insert(cs, cur, levelBits, siblings)
		if err != nil {
			return err
		}
		if cur, err = p.Shape.hashNode(cs, inserted); err != nil {
			return err
		}
	}
	PackIntoInputs(cs, allBits)
	root := p.Root.Allocated(cs)
	Equal(cs, cur, root)
	if !p.Private {
		root.Inputize(cs)
	}
	return nil
}

// PoRNoChallengeInput is rfp por_no_challenge_input (SnapDeals): the same per-level
// sequence, but the challenge bits are given (already allocated, LSB first) and the path
// siblings are already allocated; no index bits, no packing, no leaf or root allocation.
// The last row is computed_root | ONE | root.
func PoRNoChallengeInput(cs r1cs.ConstraintSystem, shape TreeShape, challengeBits []AllocatedBit, leaf AllocatedNum, path [][]AllocatedNum, root AllocatedNum) error {
	counts := make([]int, len(path))
	for i := range path {
		counts[i] = len(path[i])
	}
	levels, err := shape.checkPath(counts)
	if err != nil {
		return err
	}
	if len(challengeBits) < indexBits(levels) {
		return fmt.Errorf("%w: %d challenge bits, the path needs %d", ErrPath, len(challengeBits), indexBits(levels))
	}
	cur := leaf
	for i, arity := range levels {
		k := bits.TrailingZeros(uint(arity))
		levelBits := make([]Boolean, k)
		for j := range levelBits {
			levelBits[j] = challengeBits[j].Is()
		}
		challengeBits = challengeBits[k:]
		inserted, err := Insert(cs, cur, levelBits, path[i])
		if err != nil {
			return err
		}
		if cur, err = shape.hashNode(cs, inserted); err != nil {
			return err
		}
	}
	Equal(cs, cur, root)
	return nil
}

// ComputeRoot is the native twin of the inclusion proof: the root reached from leaf at
// leafIndex along path (same layout as PoR.Path).
func ComputeRoot(shape TreeShape, leaf fr.Element, leafIndex uint64, path [][]fr.Element) (fr.Element, error) {
	counts := make([]int, len(path))
	for i := range path {
		counts[i] = len(path[i])
	}
	levels, err := shape.checkPath(counts)
	if err != nil {
		return fr.Element{}, err
	}
	if nb := indexBits(levels); nb < 64 && leafIndex>>nb != 0 {
		return fr.Element{}, fmt.Errorf("%w: leaf index %d needs more than %d bits", ErrPath, leafIndex, nb)
	}
	var children [16]fr.Element
	cur := leaf
	for i, arity := range levels {
		if arity > len(children) {
			return fr.Element{}, fmt.Errorf("%w: arity %d", ErrPath, arity)
		}
		pos := int(leafIndex & uint64(arity-1))
		leafIndex >>= bits.TrailingZeros(uint(arity))
		n := 0
		for j := range arity {
			if j == pos {
				children[j] = cur
				continue
			}
			children[j] = path[i][n]
			n++
		}
		if cur, err = shape.hashNodeNative(children[:arity]); err != nil {
			return fr.Element{}, err
		}
	}
	return cur, nil
}
