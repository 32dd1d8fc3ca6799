package update

import (
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/snarkpipe/snarkpipe/sealer/gadget"
)

// PublicInputs are one partition's public values: the partition index k, the number h of
// high challenge bits hashed into rho, and the three commitments as field elements.
type PublicInputs struct {
	K, H                         int
	CommROld, CommDNew, CommRNew fr.Element
}

// KAndHSelect returns k | h_select << partition_bits, the packed first public input
// (upstream circuit::PublicInputs::new); h_select = 1 << (first index of h in hs).
func (c Config) KAndHSelect(k, h int) (uint64, error) {
	if k < 0 || k >= c.Partitions() {
		return 0, fmt.Errorf("%w: partition %d of %d", ErrConfig, k, c.Partitions())
	}
	for i, v := range c.Hs() {
		if v == h {
			return uint64(k) | uint64(1)<<i<<c.PartitionBits(), nil
		}
	}
	return 0, fmt.Errorf("%w: h = %d not in %v", ErrConfig, h, c.Hs())
}

// InputVector returns the circuit's public inputs 1..4 in order (upstream to_vec):
// k_and_h_select, comm_r_old, comm_d_new, comm_r_new. ONE is not included.
func (c Config) InputVector(p *PublicInputs) ([]fr.Element, error) {
	kh, err := c.KAndHSelect(p.K, p.H)
	if err != nil {
		return nil, err
	}
	var khFr fr.Element
	khFr.SetUint64(kh)
	return []fr.Element{khFr, p.CommROld, p.CommDNew, p.CommRNew}, nil
}

// genRandomness is Poseidon arity 2 with the custom domain tag 2^40 (upstream
// POSEIDON_CONSTANTS_GEN_RANDOMNESS, HashType::Custom(1)).
var genRandomness = func() *gadget.PoseidonConstants {
	tag, err := gadget.PoseidonCustomTag(1)
	if err != nil {
		panic(err)
	}
	c, err := gadget.PoseidonFor(2)
	if err != nil {
		panic(err)
	}
	return c.WithDomainTag(tag)
}()

// poseidon2 is the MerkleTree arity-2 Poseidon of comm_r = H(comm_c, root_r).
var poseidon2 = func() *gadget.PoseidonConstants {
	c, err := gadget.PoseidonFor(2)
	if err != nil {
		panic(err)
	}
	return c
}()

func hashGen(a, b *fr.Element) fr.Element {
	var out fr.Element
	if err := genRandomness.Hash(&out, []fr.Element{*a, *b}); err != nil {
		panic(err) // arity is fixed at 2
	}
	return out
}

// Phi is phi = H_gen(comm_d_new, comm_r_old).
func Phi(commDNew, commROld *fr.Element) fr.Element { return hashGen(commDNew, commROld) }

// Rho is rho = H_gen(phi, high) for the h high bits of a node index.
func Rho(phi *fr.Element, high uint64) fr.Element {
	var h fr.Element
	h.SetUint64(high)
	return hashGen(phi, &h)
}

// CommR is comm_r = H(comm_c, root_r) with the MerkleTree arity-2 Poseidon.
func CommR(commC, rootR *fr.Element) fr.Element { return gadget.HashPoseidon2(commC, rootR) }

// digest is H_gen(comm_r_new, digest_index), the source of challenge bits.
func digest(commRNew *fr.Element, index uint64) fr.Element {
	var idx fr.Element
	idx.SetUint64(index)
	return hashGen(commRNew, &idx)
}

// Challenges returns partition k's challenges (upstream challenges.rs): digest j of
// partition k is H_gen(comm_r_new, k·digests + j); each challenge takes RandomBits bits of
// the digest (LSB first) and k on its high end.
func (c Config) Challenges(commRNew *fr.Element, k int) ([]uint64, error) {
	if k < 0 || k >= c.Partitions() {
		return nil, fmt.Errorf("%w: partition %d of %d", ErrConfig, k, c.Partitions())
	}
	rb, per, n := c.RandomBits(), c.ChallengesPerDigest(), c.ChallengeCount()
	out := make([]uint64, 0, n)
	for j := 0; len(out) < n; j++ {
		d := digest(commRNew, uint64(k*c.DigestsPerPartition()+j))
		dbits := gadget.FrBitsLE(&d)
		for i := 0; i < per && len(out) < n; i++ {
			var ch uint64
			for b := range rb {
				if dbits[i*rb+b] {
					ch |= 1 << b
				}
			}
			out = append(out, ch|uint64(k)<<rb)
		}
	}
	return out, nil
}

// High returns the h high bits of challenge ch.
func (c Config) High(ch uint64, h int) uint64 { return ch >> (c.ChallengeBits() - h) }
