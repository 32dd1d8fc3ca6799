package refseal

import (
	"fmt"
	"math/bits"
	"runtime"
	"sync"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/snarkpipe/snarkpipe/sealer/gadget"
	"github.com/snarkpipe/snarkpipe/types"
	"github.com/snarkpipe/snarkpipe/types/vanilla"
)

// tree is a Merkle tree whose levels may have different arities (bottom up: the base levels,
// then the sub level, then the top level of rust-fil-proofs' compound trees; a compound tree
// of V·W base trees laid out consecutively is exactly such a mixed-arity tree). Node i of
// level h+1 hashes nodes i·a … i·a+a−1 of level h.
//
// A dense tree stores every node. A sparse tree stores only the nodes above a set of known
// leaves; every other node of level h equals defaults[h] (the root of a subtree whose leaves
// all hold the default leaf value). Sparse trees give valid openings of the known leaves of
// a 32 or 64 GiB tree without materialising it.
type tree struct {
	sha      bool  // SHA-256 node hash (tree D) instead of Poseidon
	arities  []int // per level, bottom up
	base     types.TreeShape
	baseLvls int
	dense    [][]vanilla.Domain
	sparse   []map[uint64]vanilla.Domain
	defaults []vanilla.Domain
}

// shapeArities lists the level arities of a tree over `leaves` leaves with the given shape.
func shapeArities(shape types.TreeShape, leaves uint64) ([]int, int, error) {
	baseLeaves := leaves
	if shape.Sub > 0 {
		baseLeaves /= uint64(shape.Sub)
	}
	if shape.Top > 0 {
		baseLeaves /= uint64(shape.Top)
	}
	k := bits.TrailingZeros(uint(shape.Base))
	if baseLeaves == 0 || baseLeaves&(baseLeaves-1) != 0 || bits.TrailingZeros64(baseLeaves)%k != 0 {
		return nil, 0, fmt.Errorf("refseal: %d leaves do not fit tree shape %v", leaves, shape)
	}
	baseLevels := bits.TrailingZeros64(baseLeaves) / k
	out := make([]int, 0, baseLevels+2)
	for range baseLevels {
		out = append(out, shape.Base)
	}
	if shape.Sub > 0 {
		out = append(out, shape.Sub)
	}
	if shape.Top > 0 {
		out = append(out, shape.Top)
	}
	return out, baseLevels, nil
}

func newTree(sha bool, shape types.TreeShape, leaves uint64) (*tree, error) {
	ar, baseLevels, err := shapeArities(shape, leaves)
	if err != nil {
		return nil, err
	}
	return &tree{sha: sha, arities: ar, base: shape, baseLvls: baseLevels}, nil
}

// buildDenseTree hashes every level of a tree over leaves, in parallel.
func buildDenseTree(sha bool, shape types.TreeShape, leaves []vanilla.Domain) (*tree, error) {
	t, err := newTree(sha, shape, uint64(len(leaves)))
	if err != nil {
		return nil, err
	}
	t.dense = [][]vanilla.Domain{leaves}
	for _, a := range t.arities {
		below := t.dense[len(t.dense)-1]
		level := make([]vanilla.Domain, len(below)/a)
		err := parallelRange(len(level), func(lo, hi int) error {
			for i := lo; i < hi; i++ {
				h, err := t.hash(below[i*a : (i+1)*a])
				if err != nil {
					return err
				}
				level[i] = h
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		t.dense = append(t.dense, level)
	}
	return t, nil
}

// buildSparseTree builds the sparse tree over `leaves` leaves where only known leaves differ
// from defaultLeaf.
func buildSparseTree(sha bool, shape types.TreeShape, leaves uint64, known map[uint64]vanilla.Domain, defaultLeaf vanilla.Domain) (*tree, error) {
	t, err := newTree(sha, shape, leaves)
	if err != nil {
		return nil, err
	}
	if t.defaults, err = t.defaultNodes(defaultLeaf); err != nil {
		return nil, err
	}
	t.sparse = []map[uint64]vanilla.Domain{known}
	for h, a := range t.arities {
		level, err := t.sparseLevel(h, a)
		if err != nil {
			return nil, err
		}
		t.sparse = append(t.sparse, level)
	}
	return t, nil
}

// defaultsKey identifies the default nodes of a sparse tree.
type defaultsKey struct {
	sha     bool
	arities string
	leaf    vanilla.Domain
}

// defaultsCache holds default nodes per tree kind: a Window PoSt partition builds thousands
// of sparse trees of one shape.
var defaultsCache sync.Map // defaultsKey → []vanilla.Domain

// defaultNodes returns, per level, the root of a subtree whose leaves all hold leaf.
func (t *tree) defaultNodes(leaf vanilla.Domain) ([]vanilla.Domain, error) {
	key := defaultsKey{sha: t.sha, arities: fmt.Sprint(t.arities), leaf: leaf}
	if v, ok := defaultsCache.Load(key); ok {
		return v.([]vanilla.Domain), nil
	}
	out := []vanilla.Domain{leaf}
	var buf [8]vanilla.Domain
	for h, a := range t.arities {
		for j := range a {
			buf[j] = out[h]
		}
		d, err := t.hash(buf[:a])
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	defaultsCache.Store(key, out)
	return out, nil
}

// sparseLevel hashes the parents (level h+1) of the known nodes of level h, in parallel.
func (t *tree) sparseLevel(h, a int) (map[uint64]vanilla.Domain, error) {
	seen := make(map[uint64]struct{}, len(t.sparse[h]))
	for i := range t.sparse[h] {
		seen[i/uint64(a)] = struct{}{}
	}
	parents := make([]uint64, 0, len(seen))
	for p := range seen {
		parents = append(parents, p)
	}
	hashes := make([]vanilla.Domain, len(parents))
	err := parallelRange(len(parents), func(lo, hi int) error {
		var buf [8]vanilla.Domain
		for k := lo; k < hi; k++ {
			for j := range a {
				buf[j] = t.node(h, parents[k]*uint64(a)+uint64(j))
			}
			var err error
			if hashes[k], err = t.hash(buf[:a]); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	level := make(map[uint64]vanilla.Domain, len(parents))
	for k, p := range parents {
		level[p] = hashes[k]
	}
	return level, nil
}

func (t *tree) node(h int, i uint64) vanilla.Domain {
	if t.dense != nil {
		return t.dense[h][i]
	}
	if v, ok := t.sparse[h][i]; ok {
		return v
	}
	return t.defaults[h]
}

// Root is the tree's root.
func (t *tree) Root() vanilla.Domain { return t.node(len(t.arities), 0) }

func (t *tree) hash(children []vanilla.Domain) (vanilla.Domain, error) {
	if t.sha {
		return gadget.NodeHash((*[32]byte)(&children[0]), (*[32]byte)(&children[1])), nil
	}
	var in [8]fr.Element
	for i := range children {
		e, err := fr.LittleEndian.Element((*[32]byte)(&children[i]))
		if err != nil {
			return vanilla.Domain{}, fmt.Errorf("refseal: tree node %x is not a field element: %w", children[i][:], err)
		}
		in[i] = e
	}
	var out fr.Element
	switch len(children) {
	case 2:
		out = gadget.HashPoseidon2(&in[0], &in[1])
	case 8:
		out = gadget.HashPoseidon8((*[8]fr.Element)(in[:8]))
	default:
		c, err := gadget.PoseidonFor(len(children))
		if err != nil {
			return vanilla.Domain{}, err
		}
		if err := c.Hash(&out, in[:len(children)]); err != nil {
			return vanilla.Domain{}, err
		}
	}
	return vanilla.Domain(gadget.FrToBytesLE(&out)), nil
}

// Proof opens leaf in upstream's MerkleProof layout: Single for base-only trees, Sub or Top
// for compound trees; each path element holds the siblings in order and the position.
func (t *tree) Proof(leaf uint64) vanilla.MerkleProof {
	p := vanilla.MerkleProof{Kind: vanilla.ProofSingle, Root: t.Root(), Leaf: t.node(0, leaf)}
	idx := leaf
	path := make([]vanilla.PathElement, len(t.arities))
	for h, a := range t.arities {
		pos := idx % uint64(a)
		group := idx - pos
		e := vanilla.PathElement{Index: pos, Hashes: make([]vanilla.Domain, 0, a-1)}
		for j := uint64(0); j < uint64(a); j++ {
			if j != pos {
				e.Hashes = append(e.Hashes, t.node(h, group+j))
			}
		}
		path[h] = e
		idx /= uint64(a)
	}
	p.Base = path[:t.baseLvls]
	rest := path[t.baseLvls:]
	if t.base.Sub > 0 {
		p.Kind, p.Sub, rest = vanilla.ProofSub, rest[:1], rest[1:]
	}
	if t.base.Top > 0 {
		p.Kind, p.Top = vanilla.ProofTop, rest[:1]
	}
	return p
}

// parallelRange splits [0, n) into GOMAXPROCS chunks and runs fn on each.
func parallelRange(n int, fn func(lo, hi int) error) error {
	workers := min(runtime.GOMAXPROCS(0), max(n/64, 1))
	if workers <= 1 {
		return fn(0, n)
	}
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		lo, hi := n*w/workers, n*(w+1)/workers
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[w] = fn(lo, hi)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
