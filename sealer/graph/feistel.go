package graph

import "encoding/binary"

// feistelRounds is upstream's FEISTEL_ROUNDS: only the first 3 of the 4 keys are used.
const feistelRounds = 3

// FeistelKeys derives the four Feistel keys of a porep_id: SHA-256("Filecoin_Feistel" ‖
// porep_id) read as four u64 LE words.
func FeistelKeys(porepID [32]byte) (keys [4]uint64) {
	s := porepDomainSeed(feistelDST, porepID)
	for i := range keys {
		keys[i] = binary.LittleEndian.Uint64(s[8*i:])
	}
	return keys
}

// feistel is the keyed permutation of [0, n) used by the expander (rust-fil-proofs
// storage-proofs-core crypto/feistel.rs): a 3-round balanced Feistel network over the
// smallest even bit width covering n, cycle-walked back into range.
type feistel struct {
	n                   uint64
	keys                [4]uint64
	leftMask, rightMask uint64
	halfBits            uint
}

func newFeistel(n uint64, keys [4]uint64) feistel {
	nextPow4, log4 := uint64(4), uint(1)
	for nextPow4 < n {
		nextPow4 *= 4
		log4++
	}
	return feistel{n: n, keys: keys, rightMask: 1<<log4 - 1, leftMask: (1<<log4 - 1) << log4, halfBits: log4}
}

func (f *feistel) permute(index uint64) uint64 {
	u := f.encode(index)
	for u >= f.n {
		u = f.encode(u)
	}
	return u
}

func (f *feistel) encode(index uint64) uint64 {
	left, right := (index&f.leftMask)>>f.halfBits, index&f.rightMask
	for _, key := range f.keys[:feistelRounds] {
		left, right = right, left^f.round(right, key)
	}
	return left<<f.halfBits | right
}

// round is F(R, key): the first 8 bytes, big-endian, of BLAKE2b-512(u64_be(R) ‖ u64_be(key)),
// masked to the half width.
func (f *feistel) round(right, key uint64) uint64 {
	return blake2b512Head8(right, key) & f.rightMask
}
