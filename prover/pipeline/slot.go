package pipeline

import (
	"unsafe"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// slotShape sizes one partition's host buffers: n = inputs + aux values and m = the
// prover's row vectors (the domain size, or n when that is larger, because the prover
// reuses the b and c buffers for its density-filtered scalars).
type slotShape struct{ n, m int }

func shapeFor(n, domain int) slotShape { return slotShape{n: n, m: max(domain, n)} }

const frBytes = int64(unsafe.Sizeof(fr.Element{}))

// bytes is the memory of one slot of this shape.
func (s slotShape) bytes() int64 { return (int64(s.n) + 3*int64(s.m)) * frBytes }

// slot is one partition's working set: the assignment z and the row vectors a, b, c,
// carved out of a single block. Slots are pooled per shape and reused; a free never
// happens on the proving path (see arena and freer).
type slot struct {
	shape   slotShape
	z       []fr.Element
	a, b, c []fr.Element
	block   memBlock
}

// newSlot allocates a slot, off the Go heap when it is large.
func newSlot(shape slotShape) (*slot, error) {
	n := shape.n + 3*shape.m
	all, blk, err := allocElements(n)
	if err != nil {
		return nil, err
	}
	s := &slot{shape: shape, block: blk}
	s.z = all[:shape.n:shape.n]
	rest := all[shape.n:]
	s.a = rest[:shape.m:shape.m]
	s.b = rest[shape.m : 2*shape.m : 2*shape.m]
	s.c = rest[2*shape.m : 3*shape.m : 3*shape.m]
	return s, nil
}

func (s *slot) free() error {
	s.z, s.a, s.b, s.c = nil, nil, nil, nil
	return s.block.free()
}
