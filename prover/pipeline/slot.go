package pipeline

import (
	"errors"
	"unsafe"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// slotShape sizes one partition's host buffers: n = inputs + aux values; m = the
// prover's row vectors (the domain size, or n when that is larger, because the prover
// reuses the b and c buffers for its density-filtered scalars), 0 when the rows are
// evaluated on the device; words = the length of each of the two bitmaps of a packed
// witness (0: not packed).
type slotShape struct{ n, m, words int }

func shapeFor(n, domain int) slotShape { return slotShape{n: n, m: max(domain, n)} }

const frBytes = int64(unsafe.Sizeof(fr.Element{}))

// bytes is the memory of one slot of this shape.
func (s slotShape) bytes() int64 { return s.elements() * frBytes }

// elements is the slot's block length in field elements (the bitmaps rounded up).
func (s slotShape) elements() int64 {
	bitmapBytes := 2 * int64(s.words) * 8
	return int64(s.n) + 3*int64(s.m) + (bitmapBytes+frBytes-1)/frBytes
}

// slot is one partition's working set: the assignment z, the row vectors a, b, c (when
// the host evaluates them) and the bitmaps of a packed witness, carved out of a single
// block. Slots are pooled per shape and reused; a free never happens on the proving path
// (see arena and freer). A slot is page-locked at most once, when first used by a device
// that uploads from it (unpin is then set), and unpinned when it is freed.
type slot struct {
	shape       slotShape
	all         []fr.Element // the whole block
	z           []fr.Element
	a, b, c     []fr.Element
	field, ones []uint64
	block       memBlock
	unpin       func() error
}

// newSlot allocates a slot, off the Go heap when it is large.
func newSlot(shape slotShape) (*slot, error) {
	all, blk, err := allocElements(int(shape.elements()))
	if err != nil {
		return nil, err
	}
	s := &slot{shape: shape, all: all, block: blk}
	s.z = all[:shape.n:shape.n]
	rest := all[shape.n:]
	m := shape.m
	s.a = rest[:m:m]
	s.b = rest[m : 2*m : 2*m]
	s.c = rest[2*m : 3*m : 3*m]
	if w := shape.words; w > 0 {
		tail := rest[3*m:]
		words := unsafe.Slice((*uint64)(unsafe.Pointer(unsafe.SliceData(tail))), 2*w)
		s.field, s.ones = words[:w:w], words[w:]
	}
	return s, nil
}

// free unpins the slot (if it was pinned), then releases its memory.
func (s *slot) free() error {
	var unpinErr error
	if s.unpin != nil {
		unpinErr = s.unpin()
		s.unpin = nil
	}
	s.all, s.z, s.a, s.b, s.c, s.field, s.ones = nil, nil, nil, nil, nil, nil, nil
	return errors.Join(unpinErr, s.block.free())
}
