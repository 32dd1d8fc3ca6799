package gadget

import (
	"errors"
	"fmt"

	"github.com/snarkpipe/snarkpipe/prover/r1cs"
)

// ErrInsertShape reports an insert or select whose sizes do not fit together.
var ErrInsertShape = errors.New("gadget: insert/select size mismatch")

// Pick allocates c = cond ? a : b (rfp insertion::pick): aux c, row b − a | cond | b − c.
func Pick(cs r1cs.ConstraintSystem, cond Boolean, a, b AllocatedNum) AllocatedNum {
	v := b.Value
	if cond.Value {
		v = a.Value
	}
	c := AllocNum(cs, v)
	if s := rowFor(cs); s != nil {
		s.a.Add(b.Var)
		s.a.Sub(a.Var)
		cond.addTo(&s.b)
		s.c.Add(b.Var)
		s.c.Sub(c.Var)
		s.enforce(cs, "pick")
	}
	return c
}

// Insert places element at position index (bits, LSB first) among len(siblings)+1 slots;
// the siblings fill the other slots in order (rfp insertion::insert). Arities 2, 4 and 8
// use upstream's hand-optimised pick sequences (2, 8 and 22 rows); other powers of two use
// one Select per position.
func Insert(cs r1cs.ConstraintSystem, element AllocatedNum, bits []Boolean, siblings []AllocatedNum) ([]AllocatedNum, error) {
	size := len(siblings) + 1
	if len(bits) >= 31 || 1<<len(bits) != size {
		return nil, fmt.Errorf("%w: %d index bits for %d slots", ErrInsertShape, len(bits), size)
	}
	switch size {
	case 2:
		return insert2(cs, element, bits, siblings), nil
	case 4:
		return insert4(cs, element, bits, siblings), nil
	case 8:
		return insert8(cs, element, bits, siblings)
	}
	return insertGeneric(cs, element, bits, siblings)
}

// insertGeneric is upstream's general insert: for each slot, a Select over the values the
// slot takes for every possible index (size·(size−1) picks).
func insertGeneric(cs r1cs.ConstraintSystem, element AllocatedNum, bits []Boolean, siblings []AllocatedNum) ([]AllocatedNum, error) {
	size := len(siblings) + 1
	out := make([]AllocatedNum, size)
	choices := make([]AllocatedNum, size)
	for pos := range size {
		// choices[index] is what slot pos holds when element sits at index.
		for index := range size {
			switch {
			case pos < index:
				choices[index] = siblings[pos]
			case pos == index:
				choices[index] = element
			default:
				choices[index] = siblings[pos-1]
			}
		}
		sel, err := Select(cs, choices, bits)
		if err != nil {
			return nil, err
		}
		out[pos] = sel
	}
	return out, nil
}

func insert2(cs r1cs.ConstraintSystem, a AllocatedNum, bits []Boolean, sib []AllocatedNum) []AllocatedNum {
	return []AllocatedNum{
		Pick(cs, bits[0], sib[0], a),
		Pick(cs, bits[0], a, sib[0]),
	}
}

func insert4(cs r1cs.ConstraintSystem, a AllocatedNum, bits []Boolean, sib []AllocatedNum) []AllocatedNum {
	b0, b1 := bits[0], bits[1]
	b, c, d := sib[0], sib[1], sib[2]

	p0x0 := Pick(cs, b0, b, a)
	p0 := Pick(cs, b1, b, p0x0)

	p1x0 := Pick(cs, b0, a, b)
	p1 := Pick(cs, b1, c, p1x0)

	p2x1 := Pick(cs, b0, d, a)
	p2 := Pick(cs, b1, p2x1, c)

	p3x1 := Pick(cs, b0, a, d)
	p3 := Pick(cs, b1, p3x1, d)
	return []AllocatedNum{p0, p1, p2, p3}
}

func insert8(cs r1cs.ConstraintSystem, a AllocatedNum, bits []Boolean, sib []AllocatedNum) ([]AllocatedNum, error) {
	b0, b1, b2 := bits[0], bits[1], bits[2]
	if b0.Kind != BoolIs || b1.Kind != BoolIs {
		// Upstream requires allocated, unnegated low bits here (it panics otherwise).
		return nil, fmt.Errorf("%w: insert_8 needs allocated index bits 0 and 1", ErrInsertShape)
	}
	b, c, d, e, f, g, h := sib[0], sib[1], sib[2], sib[3], sib[4], sib[5], sib[6]

	nor := Nor(cs, b0.bit(), b1.bit()).Is()
	and := And(cs, b0.bit(), b1.bit()).Is()

	p0xx0 := Pick(cs, nor, a, b)
	p0 := Pick(cs, b2, b, p0xx0)

	p1x00 := Pick(cs, b0, a, b)
	p1xx0 := Pick(cs, b1, c, p1x00)
	p1 := Pick(cs, b2, c, p1xx0)

	p2x10 := Pick(cs, b0, d, a)
	p2xx0 := Pick(cs, b1, p2x10, c)
	p2 := Pick(cs, b2, d, p2xx0)

	p3xx0 := Pick(cs, and, a, d)
	p3 := Pick(cs, b2, e, p3xx0)

	p4xx1 := Pick(cs, nor, a, f)
	p4 := Pick(cs, b2, p4xx1, e)

	p5x01 := Pick(cs, b0, a, f)
	p5xx1 := Pick(cs, b1, g, p5x01)
	p5 := Pick(cs, b2, p5xx1, f)

	p6x11 := Pick(cs, b0, h, a)
	p6xx1 := Pick(cs, b1, p6x11, g)
	p6 := Pick(cs, b2, p6xx1, g)

	p7xx1 := Pick(cs, and, a, h)
	p7 := Pick(cs, b2, p7xx1, h)
	return []AllocatedNum{p0, p1, p2, p3, p4, p5, p6, p7}, nil
}

// Select returns from[index] for index given by bits, LSB first (rfp insertion::select):
// a halving tree over the bits from the most significant down, len(from) − 1 picks.
func Select(cs r1cs.ConstraintSystem, from []AllocatedNum, bits []Boolean) (AllocatedNum, error) {
	if len(bits) >= 31 || 1<<len(bits) != len(from) {
		return AllocatedNum{}, fmt.Errorf("%w: %d bits select among %d", ErrInsertShape, len(bits), len(from))
	}
	state := append([]AllocatedNum(nil), from...)
	half := len(from) / 2
	for i := len(bits) - 1; i >= 0; i-- {
		next := make([]AllocatedNum, half)
		for j := range half {
			next[j] = Pick(cs, bits[i], state[half+j], state[j])
		}
		state = next
		half /= 2
	}
	return state[0], nil
}
