package graph

import (
	"crypto/sha256"
	"encoding/binary"
	"math/bits"

	"github.com/snarkpipe/snarkpipe/types"
)

// BaseDegree is the number of DRG parents per node (upstream BASE_DEGREE).
const BaseDegree = 6

// ExpDegree is the number of expander parents per node (upstream EXP_DEGREE).
const ExpDegree = 8

// Degree is the total number of parents per node.
const Degree = BaseDegree + ExpDegree

// Domain-separation tags of porep_id-derived seeds (rust-fil-proofs storage-proofs-core
// crypto/mod.rs).
const (
	drsampleDST = "Filecoin_DRSample"
	feistelDST  = "Filecoin_Feistel"
)

func porepDomainSeed(dst string, porepID [32]byte) [32]byte {
	h := sha256.New()
	h.Write([]byte(dst))
	h.Write(porepID[:])
	var out [32]byte
	h.Sum(out[:0])
	return out
}

// DRGSeed is the 28-byte BucketGraph seed of a porep_id.
func DRGSeed(porepID [32]byte) (seed [28]byte) {
	s := porepDomainSeed(drsampleDST, porepID)
	copy(seed[:], s[:28])
	return seed
}

// bucketGraph computes DRG parents (rust-fil-proofs storage-proofs-core drgraph.rs).
type bucketGraph struct {
	seed [28]byte
	// predecessorFirst puts v−1 in slot 0 (V1_1_0 and later); V1_0_0 puts it in slot 5.
	predecessorFirst bool
}

// parents writes the 6 DRG parents of node into out.
func (g *bucketGraph) parents(node uint32, out []uint32) {
	if node < 2 {
		clear(out[:BaseDegree])
		return
	}
	var seed [32]byte
	copy(seed[:], g.seed[:])
	binary.LittleEndian.PutUint32(seed[28:], node)
	rng := newChaCha8(&seed)

	const mPrime = BaseDegree - 1
	meta := uint64(node) * mPrime
	// ceil(log2(meta)) computed exactly; upstream goes through f64, which is exact here
	// because meta < 2^54 is enforced upstream and log2 of a non-power of two is far from
	// an integer at this magnitude.
	nBuckets := uint64(bits.Len64(meta - 1))

	other, pred := out[1:BaseDegree], 0
	if !g.predecessorFirst {
		other, pred = out[:mPrime], mPrime
	}
	for i := range other {
		bucket := rng.Uint64()%nBuckets + 1
		largest := min(meta, uint64(1)<<bucket)
		smallest := max(2, largest>>1)
		dist := smallest + rng.Uint64()%(largest-smallest+1)
		p := uint32((meta - dist) / mPrime)
		if p == node {
			p = node - 1
		}
		other[i] = p
	}
	out[pred] = node - 1
}

func newBucketGraph(porepID [32]byte, api types.APIVersion) bucketGraph {
	return bucketGraph{seed: DRGSeed(porepID), predecessorFirst: api != types.APIVersion1_0_0}
}
