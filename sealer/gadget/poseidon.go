package gadget

import (
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// Native Poseidon: neptune's hash_optimized_static (spec circuits.md §5.2), the form the
// circuit mirrors. Hashing allocates nothing: the state lives in a fixed array on the
// stack.

// poseidonState is the permutation state; only the first Width entries are used.
type poseidonState [poseidonMaxWidth]fr.Element

// Hash writes the Poseidon digest of preimage (exactly c.Arity elements) to dst.
func (c *PoseidonConstants) Hash(dst *fr.Element, preimage []fr.Element) error {
	if len(preimage) != c.Arity {
		return fmt.Errorf("%w: got %d elements, arity %d", ErrPoseidonPreimage, len(preimage), c.Arity)
	}
	var s poseidonState
	s[0] = c.DomainTag
	copy(s[1:c.Width], preimage)
	c.permute(&s)
	*dst = s[1]
	return nil
}

// HashPoseidon2 is the arity-2 MerkleTree hash (binary tree nodes, comm_r, column hashes
// of 2-layer test graphs).
func HashPoseidon2(a, b *fr.Element) fr.Element {
	c := mustPoseidonFor(2)
	var s poseidonState
	s[0], s[1], s[2] = c.DomainTag, *a, *b
	c.permute(&s)
	return s[1]
}

// HashPoseidon4 is the arity-4 MerkleTree hash.
func HashPoseidon4(p *[4]fr.Element) fr.Element { return hashFixed(mustPoseidonFor(4), p[:]) }

// HashPoseidon8 is the arity-8 MerkleTree hash (oct tree nodes).
func HashPoseidon8(p *[8]fr.Element) fr.Element { return hashFixed(mustPoseidonFor(8), p[:]) }

// HashPoseidon11 is the arity-11 MerkleTree hash (column hashes of 11-layer graphs).
func HashPoseidon11(p *[11]fr.Element) fr.Element { return hashFixed(mustPoseidonFor(11), p[:]) }

// hashFixed hashes a preimage whose length the caller's array type already guarantees.
func hashFixed(c *PoseidonConstants, p []fr.Element) fr.Element {
	var s poseidonState
	s[0] = c.DomainTag
	copy(s[1:c.Width], p)
	c.permute(&s)
	return s[1]
}

// HashMD is rust-fil-proofs' PoseidonFunction::hash_md: a Merkle–Damgård chain of
// arity-36 hashes. acc = input[0]; then each chunk of up to 35 further elements is hashed
// as [acc, chunk…], a short last chunk padded with zeros. input needs ≥ 2 elements.
func HashMD(dst *fr.Element, input []fr.Element) error {
	if len(input) < 2 {
		return fmt.Errorf("%w: hash_md needs at least 2 elements, got %d", ErrPoseidonPreimage, len(input))
	}
	c := mustPoseidonFor(36)
	acc := input[0]
	for rest := input[1:]; len(rest) > 0; {
		n := min(len(rest), c.Arity-1)
		var s poseidonState
		s[0], s[1] = c.DomainTag, acc
		copy(s[2:], rest[:n])
		c.permute(&s)
		acc = s[1]
		rest = rest[n:]
	}
	*dst = acc
	return nil
}

// permute runs the optimized static schedule on s[:Width]:
// add the first t constants; RF/2 full rounds (S-box all, add t constants, mix); RP
// partial rounds (S-box element 0, add one constant, sparse mix); RF/2−1 keyed full
// rounds; a last full round with no constants.
func (c *PoseidonConstants) permute(s *poseidonState) {
	t, half := c.Width, c.halfFull()
	k := c.Compressed
	for i := range t {
		s[i].Add(&s[i], &k[i])
	}
	k = k[t:]
	round := 0
	for range half {
		c.sboxAll(s, k)
		k = k[t:]
		c.mix(s, round)
		round++
	}
	for range c.PartialRounds {
		quintic(&s[0])
		s[0].Add(&s[0], &k[0])
		k = k[1:]
		c.mix(s, round)
		round++
	}
	for range half - 1 {
		c.sboxAll(s, k)
		k = k[t:]
		c.mix(s, round)
		round++
	}
	c.sboxAll(s, nil)
	c.mix(s, round)
}

// mix applies the linear layer of mixing step r (neptune's round_product_mds): the
// pre-sparse matrix at r = RF/2−1, sparse[r−RF/2] during the partial rounds, M otherwise.
func (c *PoseidonConstants) mix(s *poseidonState, r int) {
	half := c.halfFull()
	switch {
	case r == half-1:
		c.preMix.apply(s, c.Width)
	case r >= half && r < half+c.PartialRounds:
		if c.sparseVec {
			mulSparseVector(s, &c.sparse[r-half], c.Width)
		} else {
			mulSparse(s, &c.sparse[r-half], c.Width)
		}
	default:
		c.mdsMix.apply(s, c.Width)
	}
}

// sboxAll sets s[i] ← s[i]⁵ (+ k[i] unless k is nil) for the whole width.
func (c *PoseidonConstants) sboxAll(s *poseidonState, k []fr.Element) {
	t := c.Width
	if c.sboxVec {
		var x2, x4 poseidonState
		x := fr.Vector(s[:t])
		quinticVector(x, x2[:t], x4[:t])
		if k != nil {
			x.Add(x, k[:t])
		}
		return
	}
	for i := range t {
		quintic(&s[i])
		if k != nil {
			s[i].Add(&s[i], &k[i])
		}
	}
}

// quintic sets x ← x^5.
func quintic(x *fr.Element) {
	var x4 fr.Element
	x4.Square(x)
	x4.Square(&x4)
	x.Mul(x, &x4)
}
