package r1cs

import "math/bits"

// Bitmap is a growable bit vector; bit i is words[i/64]>>(i%64)&1. It is the density
// layout the backends consume.
type Bitmap struct {
	Words []uint64
	Len   int
}

func newBitmap(capacity int) Bitmap {
	return Bitmap{Words: make([]uint64, 0, (capacity+63)/64)}
}

// Append adds one bit at the end.
func (b *Bitmap) Append(set bool) {
	if b.Len%64 == 0 {
		b.Words = append(b.Words, 0)
	}
	if set {
		b.Words[b.Len/64] |= 1 << (b.Len % 64)
	}
	b.Len++
}

// Set sets bit i (i < Len).
func (b *Bitmap) Set(i int) { b.Words[i/64] |= 1 << (i % 64) }

// Get reports bit i.
func (b *Bitmap) Get(i int) bool { return b.Words[i/64]>>(i%64)&1 == 1 }

// Count is the number of set bits.
func (b *Bitmap) Count() int {
	n := 0
	for _, w := range b.Words {
		n += bits.OnesCount64(w)
	}
	return n
}
