package gadget

import (
	"errors"
	"fmt"

	"github.com/snarkpipe/snarkpipe/prover/r1cs"
)

// ErrSha256Input reports a message whose bit length is not a multiple of 8.
var ErrSha256Input = errors.New("gadget: sha256 input is not a whole number of bytes")

var sha256IV = [8]uint32{
	0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
}

var sha256K = [64]uint32{
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
	0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
	0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
	0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
	0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
	0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
}

// Sha256IV returns the initial state as constants.
func Sha256IV() [8]UInt32 {
	var iv [8]UInt32
	for i := range iv {
		iv[i] = UInt32Constant(sha256IV[i])
	}
	return iv
}

// Sha256 hashes a big-endian bit string (bytes in order, MSB first) with the padding as
// constants, and returns the 256 digest bits big-endian (bellperson sha256).
func Sha256(cs r1cs.ConstraintSystem, input []Boolean) ([]Boolean, error) {
	if len(input)%8 != 0 {
		return nil, fmt.Errorf("%w: %d bits", ErrSha256Input, len(input))
	}
	padded := make([]Boolean, 0, (len(input)+64+1+511)/512*512)
	padded = append(padded, input...)
	padded = append(padded, Constant(true))
	for (len(padded)+64)%512 != 0 {
		padded = append(padded, Constant(false))
	}
	bitLen := uint64(len(input))
	for i := 63; i >= 0; i-- {
		padded = append(padded, Constant(bitLen>>i&1 == 1))
	}
	state := Sha256IV()
	for off := 0; off < len(padded); off += 512 {
		state = Sha256Compression(cs, padded[off:off+512], state)
	}
	return stateBitsBE(state), nil
}

// Sha256BlockNoPadding compresses one 512-bit block from the IV, no padding
// (bellperson sha256_block_no_padding).
func Sha256BlockNoPadding(cs r1cs.ConstraintSystem, block []Boolean) []Boolean {
	return stateBitsBE(Sha256Compression(cs, block, Sha256IV()))
}

func stateBitsBE(state [8]UInt32) []Boolean {
	out := make([]Boolean, 0, 256)
	for i := range state {
		out = state[i].AppendBitsBE(out)
	}
	return out
}

// deferred is a round value that is either known (concrete) or a list of operands whose
// sum has not been taken yet (upstream's Maybe::Deferred). The operands live in a fixed
// array (at most 7, plus one at the final addition) so a compression does not allocate
// per round.
type deferred struct {
	ops      [8]UInt32
	n        int
	concrete bool
	value    UInt32
}

func concrete(v UInt32) deferred { return deferred{concrete: true, value: v} }

func deferredOf(ops ...UInt32) deferred {
	var d deferred
	d.n = copy(d.ops[:], ops)
	return d
}

func (d *deferred) compute(cs r1cs.ConstraintSystem, m *MultiEq, extra ...UInt32) UInt32 {
	if d.concrete {
		return d.value
	}
	n := d.n + copy(d.ops[d.n:], extra)
	return AddMany(cs, m, d.ops[:n])
}

// Sha256Compression is one compression of a 512-bit block (big-endian words) into state,
// in upstream's exact order (spec §4.2). It panics if the block is not 512 bits.
func Sha256Compression(cs r1cs.ConstraintSystem, block []Boolean, state [8]UInt32) [8]UInt32 {
	if len(block) != 512 {
		panic("gadget: sha256 block must be 512 bits")
	}
	var w [64]UInt32
	for i := range 16 {
		w[i] = UInt32FromBitsBE(block[32*i : 32*i+32])
	}
	m := NewMultiEq(cs)
	for i := 16; i < 64; i++ {
		s0 := w[i-15].Rotr(7).Xor(cs, w[i-15].Rotr(18)).Xor(cs, w[i-15].Shr(3))
		s1 := w[i-2].Rotr(17).Xor(cs, w[i-2].Rotr(19)).Xor(cs, w[i-2].Shr(10))
		ops := [4]UInt32{w[i-16], s0, w[i-7], s1}
		w[i] = AddMany(cs, m, ops[:])
	}

	a := concrete(state[0])
	b, c, d := state[1], state[2], state[3]
	e := concrete(state[4])
	f, g, h := state[5], state[6], state[7]
	for i := range 64 {
		newE := e.compute(cs, m)
		s1 := newE.Rotr(6).Xor(cs, newE.Rotr(11)).Xor(cs, newE.Rotr(25))
		ch := UInt32Ch(cs, newE, f, g)
		k := UInt32Constant(sha256K[i])

		newA := a.compute(cs, m)
		s0 := newA.Rotr(2).Xor(cs, newA.Rotr(13)).Xor(cs, newA.Rotr(22))
		maj := UInt32Maj(cs, newA, b, c)

		// temp1 = [h, S1, ch, K[i], w[i]] with the h of this round; e = temp1 ++ [d];
		// a = temp1 ++ [S0, maj].
		e = deferredOf(h, s1, ch, k, w[i], d)
		a = deferredOf(h, s1, ch, k, w[i], s0, maj)
		h = g
		g = f
		f = newE
		d = c
		c = b
		b = newA
	}

	var out [8]UInt32
	out[0] = a.compute(cs, m, state[0])
	out[1] = addPair(cs, m, state[1], b)
	out[2] = addPair(cs, m, state[2], c)
	out[3] = addPair(cs, m, state[3], d)
	out[4] = e.compute(cs, m, state[4])
	out[5] = addPair(cs, m, state[5], f)
	out[6] = addPair(cs, m, state[6], g)
	out[7] = addPair(cs, m, state[7], h)
	m.Flush()
	return out
}

// addPair is AddMany of two operands.
func addPair(cs r1cs.ConstraintSystem, m *MultiEq, x, y UInt32) UInt32 {
	ops := [2]UInt32{x, y}
	return AddMany(cs, m, ops[:])
}
