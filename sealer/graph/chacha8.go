package graph

import (
	"encoding/binary"
	"math/bits"
)

// chachaRng is the ChaCha block stream that rand_chacha's ChaChaXRng draws from: a 256-bit
// key, a 64-bit block counter starting at 0 in words 12–13, a zero 64-bit stream id in words
// 14–15, output words consumed in order. golang.org/x/crypto has only ChaCha20 (IETF layout,
// 20 rounds), so the core is written here; rounds is 8 for the DRG.
type chachaRng struct {
	key     [8]uint32
	counter uint64
	rounds  int
	buf     [16]uint32
	next    int // index of the next unread word of buf; 16 = empty
}

// newChaCha8 seeds a ChaCha8Rng with a 32-byte seed (rand_chacha ChaCha8Rng::from_seed).
func newChaCha8(seed *[32]byte) chachaRng {
	return newChaCha(seed, 8)
}

func newChaCha(seed *[32]byte, rounds int) chachaRng {
	r := chachaRng{rounds: rounds, next: 16}
	for i := range r.key {
		r.key[i] = binary.LittleEndian.Uint32(seed[4*i:])
	}
	return r
}

// Uint32 returns the next output word.
func (r *chachaRng) Uint32() uint32 {
	if r.next == 16 {
		r.refill()
	}
	w := r.buf[r.next]
	r.next++
	return w
}

// Uint64 returns two consecutive words, the first as the low half (rand_core's BlockRng
// next_u64, including across a block boundary).
func (r *chachaRng) Uint64() uint64 {
	lo := r.Uint32()
	return uint64(r.Uint32())<<32 | uint64(lo)
}

func (r *chachaRng) refill() {
	chachaBlock(&r.buf, &r.key, r.counter, r.rounds)
	r.counter++
	r.next = 0
}

// The ChaCha constants "expand 32-byte k".
const (
	sigma0 = 0x61707865
	sigma1 = 0x3320646e
	sigma2 = 0x79622d32
	sigma3 = 0x6b206574
)

// chachaBlock computes one keystream block with a 64-bit counter and a zero stream id.
func chachaBlock(out *[16]uint32, key *[8]uint32, counter uint64, rounds int) {
	in := [16]uint32{sigma0, sigma1, sigma2, sigma3,
		key[0], key[1], key[2], key[3], key[4], key[5], key[6], key[7],
		uint32(counter), uint32(counter >> 32), 0, 0}
	x := in
	for i := 0; i < rounds; i += 2 {
		quarter(&x, 0, 4, 8, 12)
		quarter(&x, 1, 5, 9, 13)
		quarter(&x, 2, 6, 10, 14)
		quarter(&x, 3, 7, 11, 15)
		quarter(&x, 0, 5, 10, 15)
		quarter(&x, 1, 6, 11, 12)
		quarter(&x, 2, 7, 8, 13)
		quarter(&x, 3, 4, 9, 14)
	}
	for i := range out {
		out[i] = x[i] + in[i]
	}
}

func quarter(x *[16]uint32, a, b, c, d int) {
	x[a] += x[b]
	x[d] = bits.RotateLeft32(x[d]^x[a], 16)
	x[c] += x[d]
	x[b] = bits.RotateLeft32(x[b]^x[c], 12)
	x[a] += x[b]
	x[d] = bits.RotateLeft32(x[d]^x[a], 8)
	x[c] += x[d]
	x[b] = bits.RotateLeft32(x[b]^x[c], 7)
}
