package refseal

import (
	"fmt"
	"math/bits"
	"sync"

	"github.com/snarkpipe/snarkpipe/sealer/update"
	"github.com/snarkpipe/snarkpipe/types"
	"github.com/snarkpipe/snarkpipe/types/vanilla"
)

// SynthUpdate returns a valid sector update of any size, deterministic in seed, without
// materialising a sector: the old replica and the new data are constant on each aligned
// block of 2^(log2 nodes − h) nodes (h = the type's HDefault), which is exactly the range
// over which rho is constant, so the new replica is block-constant too. Every tree is then
// a blockTree: nodes at or below the block height are per-value hash chains, the few above
// are hashed on demand. Any partition's proof opens real paths of those trees, so the
// result passes native verification and satisfies the circuit at full 32/64 GiB shape.
func SynthUpdate(info *types.UpdateProofInfo, seed uint64) (*SectorUpdate, error) {
	rnd := synthRand{seed: seed}
	h := info.HDefault
	blockBits := bits.TrailingZeros64(info.Nodes()) - h
	rOld := func(b uint64) vanilla.Domain { return rnd.fr("update/replica_old", b, 0) }
	dNew := func(b uint64) vanilla.Domain { return rnd.fr("update/data_new", b, 0) }
	u := &SectorUpdate{Info: info, H: h, CommC: rnd.fr("update/comm_c", 0, 0)}
	var err error
	tROld, err := newBlockTree(false, info.Tree, info.Nodes(), blockBits, rOld)
	if err != nil {
		return nil, err
	}
	tDNew, err := newBlockTree(true, types.TreeShape{Base: 2}, info.Nodes(), blockBits, dNew)
	if err != nil {
		return nil, err
	}
	u.treeROld, u.treeDNew = tROld, tDNew
	if u.CommROld, err = commR(&u.CommC, tROld.Root()); err != nil {
		return nil, err
	}
	u.CommDNew = tDNew.Root()
	phi, err := phiOf(u.CommDNew, u.CommROld)
	if err != nil {
		return nil, err
	}
	rNew := func(b uint64) vanilla.Domain {
		rho := update.Rho(&phi, b) // block b is exactly the nodes whose h high bits are b
		ro, dn := rOld(b), dNew(b)
		v, err := encodeNode(&ro, &dn, &rho)
		if err != nil {
			panic(err) // rnd.fr values are canonical
		}
		return v
	}
	tRNew, err := newBlockTree(false, info.Tree, info.Nodes(), blockBits, rNew)
	if err != nil {
		return nil, err
	}
	u.treeRNew = tRNew
	u.CommRNew, err = commR(&u.CommC, tRNew.Root())
	return u, err
}

// blockTree is a Merkle tree over leaves that are constant on aligned blocks of
// 2^blockBits leaves (leaf value blockLeaf(block)). It is safe for concurrent use.
type blockTree struct {
	t         *tree // shape and hash function only
	blockBits int
	blockLeaf func(block uint64) vanilla.Domain
	spanBits  []int // log2 of the leaves under a node of each height

	mu     sync.Mutex
	chains map[vanilla.Domain][]vanilla.Domain // leaf value → node of a constant subtree per height
	upper  map[[2]uint64]vanilla.Domain        // (height, index) → node above the block height
}

func newBlockTree(sha bool, shape types.TreeShape, leaves uint64, blockBits int, blockLeaf func(uint64) vanilla.Domain) (*blockTree, error) {
	t, err := newTree(sha, shape, leaves)
	if err != nil {
		return nil, err
	}
	if blockBits < 0 || 1<<blockBits > leaves {
		return nil, fmt.Errorf("refseal: block of 2^%d leaves in a tree of %d", blockBits, leaves)
	}
	b := &blockTree{t: t, blockBits: blockBits, blockLeaf: blockLeaf, spanBits: []int{0},
		chains: map[vanilla.Domain][]vanilla.Domain{}, upper: map[[2]uint64]vanilla.Domain{}}
	for _, a := range t.arities {
		b.spanBits = append(b.spanBits, b.spanBits[len(b.spanBits)-1]+bits.TrailingZeros(uint(a)))
	}
	return b, nil
}

func (b *blockTree) node(h int, i uint64) vanilla.Domain {
	if b.spanBits[h] <= b.blockBits {
		return b.chain(b.blockLeaf(i<<b.spanBits[h]>>b.blockBits), h)
	}
	key := [2]uint64{uint64(h), i}
	b.mu.Lock()
	v, ok := b.upper[key]
	b.mu.Unlock()
	if ok {
		return v
	}
	a := uint64(b.t.arities[h-1])
	children := make([]vanilla.Domain, a)
	for j := range a {
		children[j] = b.node(h-1, i*a+j)
	}
	v, err := b.t.hash(children)
	if err != nil {
		panic(err) // block values and hashes are canonical field elements
	}
	b.mu.Lock()
	b.upper[key] = v
	b.mu.Unlock()
	return v
}

// chain returns the node at height h of a subtree whose leaves all equal leaf.
func (b *blockTree) chain(leaf vanilla.Domain, h int) vanilla.Domain {
	b.mu.Lock()
	c, ok := b.chains[leaf]
	b.mu.Unlock()
	if !ok {
		c = []vanilla.Domain{leaf}
		for lvl := 0; lvl < len(b.t.arities) && b.spanBits[lvl+1] <= b.blockBits; lvl++ {
			children := make([]vanilla.Domain, b.t.arities[lvl])
			for j := range children {
				children[j] = c[lvl]
			}
			v, err := b.t.hash(children)
			if err != nil {
				panic(err)
			}
			c = append(c, v)
		}
		b.mu.Lock()
		b.chains[leaf] = c
		b.mu.Unlock()
	}
	return c[h]
}

// Root is the tree's root.
func (b *blockTree) Root() vanilla.Domain { return b.node(len(b.t.arities), 0) }

// Proof opens leaf in upstream's MerkleProof layout (as tree.Proof).
func (b *blockTree) Proof(leaf uint64) vanilla.MerkleProof {
	p := vanilla.MerkleProof{Kind: vanilla.ProofSingle, Root: b.Root(), Leaf: b.node(0, leaf)}
	idx := leaf
	path := make([]vanilla.PathElement, len(b.t.arities))
	for h, a := range b.t.arities {
		pos := idx % uint64(a)
		e := vanilla.PathElement{Index: pos, Hashes: make([]vanilla.Domain, 0, a-1)}
		for j := range uint64(a) {
			if j != pos {
				e.Hashes = append(e.Hashes, b.node(h, idx-pos+j))
			}
		}
		path[h] = e
		idx /= uint64(a)
	}
	p.Base = path[:b.t.baseLvls]
	rest := path[b.t.baseLvls:]
	if b.t.base.Sub > 0 {
		p.Kind, p.Sub, rest = vanilla.ProofSub, rest[:1], rest[1:]
	}
	if b.t.base.Top > 0 {
		p.Kind, p.Top = vanilla.ProofTop, rest[:1]
	}
	return p
}
