package gadget

import (
	"errors"
	"fmt"
	"sync"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// PoseidonArities are the arities rust-fil-proofs instantiates (36 doubles as the
// Merkle–Damgård arity of hash_md).
var PoseidonArities = [...]int{2, 4, 8, 11, 16, 24, 36}

// poseidonMaxWidth bounds the state of every supported instance (arity 36 + the tag).
const poseidonMaxWidth = 37

// ErrPoseidonArity reports an arity rust-fil-proofs does not instantiate.
var ErrPoseidonArity = errors.New("gadget: unsupported Poseidon arity")

// ErrPoseidonPreimage reports a preimage whose length differs from the arity.
var ErrPoseidonPreimage = errors.New("gadget: Poseidon preimage length differs from arity")

// PoseidonConstants holds one Poseidon instance as neptune v11 builds it with
// PoseidonConstants::new() (Standard strength, MerkleTree hash type). Values are derived
// at first use from the algorithms of spec circuits.md §5.1–§5.2 and are read-only after.
type PoseidonConstants struct {
	Arity         int
	Width         int // Arity + 1
	FullRounds    int // RF
	PartialRounds int // RP
	// DomainTag is state[0] before the permutation: 2^arity − 1 for MerkleTree hashing.
	DomainTag fr.Element

	// RoundConstants are the t·(RF+RP) Grain constants of the unoptimized permutation.
	RoundConstants []fr.Element
	// Compressed are the RF·t + RP constants of the optimized schedule (§5.2).
	Compressed []fr.Element
	// mds is M (symmetric); mdsFlat is M row-major.
	mds     frMatrix
	mdsFlat []fr.Element
	// preSparse (row-major) replaces M in the mixing step just before the partial rounds.
	preSparse []fr.Element
	// sparse[i] replaces M in partial round i.
	sparse []sparseMatrix
	// mdsMix and preMix are M and preSparse for the native hot path, in the form this
	// width and CPU compute fastest; sparseVec and sboxVec say whether the partial
	// rounds' M″ and the full rounds' S-boxes use the vector forms (poseidon_mix.go).
	mdsMix, preMix     denseMatrix
	sparseVec, sboxVec bool
	// template is the recorded circuit of this instance (poseidon_template.go).
	template *poseidonTemplateCache
}

// halfFull is RF/2.
func (c *PoseidonConstants) halfFull() int { return c.FullRounds / 2 }

var poseidonInstances [len(PoseidonArities)]struct {
	once sync.Once
	c    *PoseidonConstants
	err  error
}

// PoseidonFor returns the MerkleTree-tagged constants of arity, built once per process.
func PoseidonFor(arity int) (*PoseidonConstants, error) {
	for i, a := range PoseidonArities {
		if a != arity {
			continue
		}
		inst := &poseidonInstances[i]
		inst.once.Do(func() { inst.c, inst.err = newPoseidonConstants(arity) })
		return inst.c, inst.err
	}
	return nil, fmt.Errorf("%w: %d", ErrPoseidonArity, arity)
}

// mustPoseidonFor is for the fixed arities of the convenience wrappers, which cannot
// fail: the derivation is deterministic and covered by tests.
func mustPoseidonFor(arity int) *PoseidonConstants {
	c, err := PoseidonFor(arity)
	if err != nil {
		panic(err)
	}
	return c
}

// WithDomainTag returns a copy of c that hashes with another domain tag (e.g. SnapDeals'
// Custom(1) = 2^40, see PoseidonCustomTag). The constant tables are shared, not copied.
func (c *PoseidonConstants) WithDomainTag(tag fr.Element) *PoseidonConstants {
	d := *c
	d.DomainTag = tag
	d.template = new(poseidonTemplateCache)
	return &d
}

// PoseidonMerkleTreeTag is neptune's HashType::MerkleTree tag for arity: 2^arity − 1.
func PoseidonMerkleTreeTag(arity int) fr.Element {
	var e fr.Element
	e.SetUint64(uint64(1)<<uint(arity) - 1)
	return e
}

// PoseidonCustomTag is neptune's HashType::Custom(id) tag, id·2^40 (id in 1..=256).
func PoseidonCustomTag(id uint64) (fr.Element, error) {
	var e fr.Element
	if id < 1 || id > 256 {
		return e, fmt.Errorf("gadget: Poseidon custom tag id %d outside 1..256", id)
	}
	e.SetUint64(id << 40)
	return e, nil
}

func newPoseidonConstants(arity int) (*PoseidonConstants, error) {
	t := arity + 1
	rf, rp := poseidonRoundNumbers(t)
	c := &PoseidonConstants{
		Arity: arity, Width: t, FullRounds: rf, PartialRounds: rp,
		DomainTag:      PoseidonMerkleTreeTag(arity),
		RoundConstants: poseidonRoundConstants(t, rf, rp),
		mds:            cauchyMDS(t),
		template:       new(poseidonTemplateCache),
	}
	mInv, err := c.mds.inverse()
	if err != nil {
		return nil, fmt.Errorf("gadget: Poseidon MDS arity %d: %w", arity, err)
	}
	c.Compressed = compressRoundConstants(c, mInv)
	pre, sparse, err := factorToSparse(c.mds, rp)
	if err != nil {
		return nil, fmt.Errorf("gadget: Poseidon sparse factorisation arity %d: %w", arity, err)
	}
	c.mdsFlat, c.preSparse, c.sparse = flatten(c.mds), flatten(pre), sparse
	c.chooseForms(hostCPU)
	return c, nil
}

func flatten(m frMatrix) []fr.Element {
	out := make([]fr.Element, 0, len(m)*len(m))
	for _, row := range m {
		out = append(out, row...)
	}
	return out
}

// compressRoundConstants is neptune's compress_round_constants with every partial round
// preprocessed: each post-S-box constant is pushed back through the following linear
// layer (hence Minv), and the partial rounds keep a single constant each (§5.2).
func compressRoundConstants(c *PoseidonConstants, mInv frMatrix) []fr.Element {
	t, half, rp := c.Width, c.halfFull(), c.PartialRounds
	round := func(r int) []fr.Element { return c.RoundConstants[r*t : (r+1)*t] }
	out := make([]fr.Element, 0, c.FullRounds*t+rp)

	out = append(out, round(0)...)
	for i := 0; i < half-1; i++ {
		out = append(out, mInv.applyRow(round(i+1))...)
	}

	// Backward pass over the partial rounds: fold each round's constants into the one
	// before it, keeping only the constant that meets the lone S-box.
	last := half + rp
	acc := append([]fr.Element(nil), round(last)...)
	partialKeys := make([]fr.Element, 0, rp)
	for i := range rp {
		inv := mInv.applyRow(acc)
		partialKeys = append(partialKeys, inv[0])
		inv[0].SetZero()
		prev := round(last - 1 - i)
		for j := range acc {
			acc[j].Add(&prev[j], &inv[j])
		}
	}
	out = append(out, mInv.applyRow(acc)...)
	for i := len(partialKeys) - 1; i >= 0; i-- {
		out = append(out, partialKeys[i])
	}

	for i := 1; i < half; i++ {
		out = append(out, mInv.applyRow(round(half+rp+i))...)
	}
	return out
}
