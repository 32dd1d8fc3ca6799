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

// CountBelow is the number of set bits among the first n (0 ≤ n ≤ Len): the rank of
// position n, where a density-filtered list of n's variables starts.
func (b *Bitmap) CountBelow(n int) int {
	c := 0
	for _, w := range b.Words[:n/64] {
		c += bits.OnesCount64(w)
	}
	if r := n % 64; r != 0 {
		c += bits.OnesCount64(b.Words[n/64] & (1<<uint(r) - 1))
	}
	return c
}

// AppendBits adds o's bits at the end.
func (b *Bitmap) AppendBits(o Bitmap) {
	s := uint(b.Len % 64)
	if s == 0 {
		b.Words = append(b.Words, o.Words[:(o.Len+63)/64]...)
		b.Len += o.Len
		return
	}
	for k := 0; k < (o.Len+63)/64; k++ {
		w := o.Words[k]
		if k == (o.Len-1)/64 && o.Len%64 != 0 {
			w &= 1<<uint(o.Len%64) - 1 // bits past o.Len are not o's
		}
		b.Words[len(b.Words)-1] |= w << s
		b.Words = append(b.Words, w>>(64-s))
	}
	b.Len += o.Len
	b.Words = b.Words[:(b.Len+63)/64]
}
