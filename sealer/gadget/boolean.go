package gadget

import (
	"errors"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/snarkpipe/snarkpipe/prover/r1cs"
)

// AllocatedBit is a variable constrained to 0 or 1.
type AllocatedBit struct {
	Var   r1cs.Variable
	Value bool
}

// BoolKind is the state of a Boolean.
type BoolKind uint8

// The three states of bellpepper's Boolean.
const (
	BoolConstant BoolKind = iota // Constant(Value)
	BoolIs                       // Is(bit): Value = bit
	BoolNot                      // Not(bit): Value = ¬bit
)

// Boolean is bellpepper's three-state Boolean: a constant, an allocated bit, or the
// negation of one. Value is the logical value in every state (for Not it is the negated
// bit). Upstream folds constants before emitting rows, and constraint counts depend on it.
type Boolean struct {
	Var   r1cs.Variable // the bit for Is and Not; unused for constants
	Kind  BoolKind
	Value bool
}

// Constant returns Constant(v).
func Constant(v bool) Boolean { return Boolean{Kind: BoolConstant, Value: v} }

// Is returns Is(b).
func (b AllocatedBit) Is() Boolean { return Boolean{Var: b.Var, Kind: BoolIs, Value: b.Value} }

// IsConstant reports whether b is Constant(_).
func (b Boolean) IsConstant() bool { return b.Kind == BoolConstant }

// bit returns the underlying allocated bit of Is/Not (its own, un-negated value).
func (b Boolean) bit() AllocatedBit {
	if b.Kind == BoolNot {
		return AllocatedBit{Var: b.Var, Value: !b.Value}
	}
	return AllocatedBit{Var: b.Var, Value: b.Value}
}

// Not negates b. It never emits a row.
func (b Boolean) Not() Boolean {
	switch b.Kind {
	case BoolIs:
		b.Kind = BoolNot
	case BoolNot:
		b.Kind = BoolIs
	}
	b.Value = !b.Value
	return b
}

// AddToLC appends coeff·lc(b): Constant(true) → coeff·ONE, Constant(false) → nothing,
// Is(x) → coeff·x, Not(x) → coeff·ONE − coeff·x.
func (b Boolean) AddToLC(lc *r1cs.LC, coeff *fr.Element) {
	switch b.Kind {
	case BoolConstant:
		if b.Value {
			lc.AddTerm(r1cs.One, coeff)
		}
	case BoolIs:
		lc.AddTerm(b.Var, coeff)
	case BoolNot:
		lc.AddTerm(r1cs.One, coeff)
		lc.SubTerm(b.Var, coeff)
	}
}

// addTo appends 1·lc(b).
func (b Boolean) addTo(lc *r1cs.LC) {
	one := r1cs.CoeffOne()
	b.AddToLC(lc, &one)
}

// subFrom appends −1·lc(b).
func (b Boolean) subFrom(lc *r1cs.LC) {
	var m fr.Element
	m.SetOne()
	m.Neg(&m)
	b.AddToLC(lc, &m)
}

// FieldValue returns b as 0 or 1.
func FieldValue(b bool) fr.Element {
	var e fr.Element
	if b {
		e.SetOne()
	}
	return e
}

// AllocBit allocates a bit: aux b, row ONE − b | b | 0.
func AllocBit(cs r1cs.ConstraintSystem, value bool) AllocatedBit {
	v := cs.Alloc(FieldValue(value))
	if s := rowFor(cs); s != nil {
		s.a.Add(r1cs.One)
		s.a.Sub(v)
		s.b.Add(v)
		s.enforce(cs, "boolean constraint")
	}
	return AllocatedBit{Var: v, Value: value}
}

// AllocBitConditionally allocates a bit that must be 0 when mustBeFalse is 1: aux b,
// row ONE − m − b | b | 0. Only the strict decomposition uses it.
func AllocBitConditionally(cs r1cs.ConstraintSystem, value bool, mustBeFalse AllocatedBit) AllocatedBit {
	v := cs.Alloc(FieldValue(value))
	if s := rowFor(cs); s != nil {
		s.a.Add(r1cs.One)
		s.a.Sub(mustBeFalse.Var)
		s.a.Sub(v)
		s.b.Add(v)
		s.enforce(cs, "boolean constraint")
	}
	return AllocatedBit{Var: v, Value: value}
}

// And allocates r = a ∧ b: aux r, row a | b | r.
func And(cs r1cs.ConstraintSystem, a, b AllocatedBit) AllocatedBit {
	r := AllocatedBit{Value: a.Value && b.Value}
	r.Var = cs.Alloc(FieldValue(r.Value))
	if s := rowFor(cs); s != nil {
		s.a.Add(a.Var)
		s.b.Add(b.Var)
		s.c.Add(r.Var)
		s.enforce(cs, "and constraint")
	}
	return r
}

// AndNot allocates r = a ∧ ¬b: aux r, row a | ONE − b | r.
func AndNot(cs r1cs.ConstraintSystem, a, b AllocatedBit) AllocatedBit {
	r := AllocatedBit{Value: a.Value && !b.Value}
	r.Var = cs.Alloc(FieldValue(r.Value))
	if s := rowFor(cs); s != nil {
		s.a.Add(a.Var)
		s.b.Add(r1cs.One)
		s.b.Sub(b.Var)
		s.c.Add(r.Var)
		s.enforce(cs, "and not constraint")
	}
	return r
}

// Nor allocates r = ¬a ∧ ¬b: aux r, row ONE − a | ONE − b | r.
func Nor(cs r1cs.ConstraintSystem, a, b AllocatedBit) AllocatedBit {
	r := AllocatedBit{Value: !a.Value && !b.Value}
	r.Var = cs.Alloc(FieldValue(r.Value))
	if s := rowFor(cs); s != nil {
		s.a.Add(r1cs.One)
		s.a.Sub(a.Var)
		s.b.Add(r1cs.One)
		s.b.Sub(b.Var)
		s.c.Add(r.Var)
		s.enforce(cs, "nor constraint")
	}
	return r
}

// Xor allocates r = a ⊕ b: aux r, row a + a | b | a + b − r. The row is not symmetric in
// a and b, so callers keep upstream's operand order.
func Xor(cs r1cs.ConstraintSystem, a, b AllocatedBit) AllocatedBit {
	r := AllocatedBit{Value: a.Value != b.Value}
	r.Var = cs.Alloc(FieldValue(r.Value))
	if s := rowFor(cs); s != nil {
		s.a.Add(a.Var)
		s.a.Add(a.Var)
		s.b.Add(b.Var)
		s.c.Add(a.Var)
		s.c.Add(b.Var)
		s.c.Sub(r.Var)
		s.enforce(cs, "xor constraint")
	}
	return r
}

// BoolXor is Boolean::xor with upstream's folding, first matching case wins:
// a Constant(false) side gives the other side; a Constant(true) side gives the other side
// negated; (Is, Not) in either order gives Not(xor(is, not's bit)); (Is, Is) and
// (Not, Not) give Is(xor(a's bit, b's bit)).
func BoolXor(cs r1cs.ConstraintSystem, a, b Boolean) Boolean {
	switch {
	case a.Kind == BoolConstant && !a.Value:
		return b
	case b.Kind == BoolConstant && !b.Value:
		return a
	case a.Kind == BoolConstant:
		return b.Not()
	case b.Kind == BoolConstant:
		return a.Not()
	case a.Kind == BoolIs && b.Kind == BoolNot:
		return Xor(cs, a.bit(), b.bit()).Is().Not()
	case a.Kind == BoolNot && b.Kind == BoolIs:
		return Xor(cs, b.bit(), a.bit()).Is().Not()
	default:
		return Xor(cs, a.bit(), b.bit()).Is()
	}
}

// BoolAnd is Boolean::and with upstream's folding: a Constant(false) operand gives
// Constant(false); a Constant(true) operand gives the other operand; (Is, Not) in either
// order gives and_not(is, not's bit); (Not, Not) gives nor; (Is, Is) gives and.
func BoolAnd(cs r1cs.ConstraintSystem, a, b Boolean) Boolean {
	switch {
	case a.Kind == BoolConstant && !a.Value, b.Kind == BoolConstant && !b.Value:
		return Constant(false)
	case a.Kind == BoolConstant:
		return b
	case b.Kind == BoolConstant:
		return a
	case a.Kind == BoolIs && b.Kind == BoolNot:
		return AndNot(cs, a.bit(), b.bit()).Is()
	case a.Kind == BoolNot && b.Kind == BoolIs:
		return AndNot(cs, b.bit(), a.bit()).Is()
	case a.Kind == BoolNot:
		return Nor(cs, a.bit(), b.bit()).Is()
	default:
		return And(cs, a.bit(), b.bit()).Is()
	}
}

func isFalse(b Boolean) bool { return b.Kind == BoolConstant && !b.Value }
func isTrue(b Boolean) bool  { return b.Kind == BoolConstant && b.Value }

// Sha256Ch is (a∧b)⊕(¬a∧c) with upstream's case order (spec §3.1).
func Sha256Ch(cs r1cs.ConstraintSystem, a, b, c Boolean) Boolean {
	value := (a.Value && b.Value) != (!a.Value && c.Value)
	switch {
	case a.IsConstant() && b.IsConstant() && c.IsConstant():
		return Constant(value)
	case isFalse(a):
		return c
	case isFalse(b):
		return BoolAnd(cs, a.Not(), c)
	case isFalse(c):
		return BoolAnd(cs, a, b)
	case isTrue(c):
		return BoolAnd(cs, a, b.Not()).Not()
	case isTrue(b):
		return BoolAnd(cs, a.Not(), c.Not()).Not()
	}
	// General case, a = true included: aux ch, row b − c | a | ch − c.
	ch := cs.Alloc(FieldValue(value))
	if s := rowFor(cs); s != nil {
		b.addTo(&s.a)
		c.subFrom(&s.a)
		a.addTo(&s.b)
		s.c.Add(ch)
		c.subFrom(&s.c)
		s.enforce(cs, "ch computation")
	}
	return AllocatedBit{Var: ch, Value: value}.Is()
}

// Sha256Maj is the majority of a, b, c with upstream's case order (spec §3.1).
func Sha256Maj(cs r1cs.ConstraintSystem, a, b, c Boolean) Boolean {
	value := (a.Value && b.Value) != (a.Value && c.Value) != (b.Value && c.Value)
	switch {
	case a.IsConstant() && b.IsConstant() && c.IsConstant():
		return Constant(value)
	case isFalse(a):
		return BoolAnd(cs, b, c)
	case isFalse(b):
		return BoolAnd(cs, a, c)
	case isFalse(c):
		return BoolAnd(cs, a, b)
	case isTrue(c):
		return BoolAnd(cs, a.Not(), b.Not()).Not()
	case isTrue(b):
		return BoolAnd(cs, a.Not(), c.Not()).Not()
	case isTrue(a):
		return BoolAnd(cs, b.Not(), c.Not()).Not()
	}
	// General case: aux maj, then bc = b ∧ c, then row 2·bc − b − c | a | bc − maj.
	maj := cs.Alloc(FieldValue(value))
	bc := BoolAnd(cs, b, c)
	if s := rowFor(cs); s != nil {
		bc.addTo(&s.a)
		bc.addTo(&s.a)
		b.subFrom(&s.a)
		c.subFrom(&s.a)
		a.addTo(&s.b)
		bc.addTo(&s.c)
		s.c.Sub(maj)
		s.enforce(cs, "maj computation")
	}
	return AllocatedBit{Var: maj, Value: value}.Is()
}

// BoolOr is Boolean::or = ¬(¬a ∧ ¬b), with and's folding.
func BoolOr(cs r1cs.ConstraintSystem, a, b Boolean) Boolean {
	return BoolAnd(cs, a.Not(), b.Not()).Not()
}

// ErrUnsatisfiable reports two different constants enforced equal.
var ErrUnsatisfiable = errors.New("gadget: constants enforced equal differ")

// BoolEnforceEqual enforces a = b (Boolean::enforce_equal): two constants emit nothing
// (an error when they differ); a Constant(true) side gives 0 | 0 | ONE − lc(other); a
// Constant(false) side gives 0 | 0 | lc(other); otherwise 0 | 0 | lc(a) − lc(b).
func BoolEnforceEqual(cs r1cs.ConstraintSystem, a, b Boolean) error {
	if a.IsConstant() && b.IsConstant() {
		if a.Value != b.Value {
			return ErrUnsatisfiable
		}
		return nil
	}
	if s := rowFor(cs); s != nil {
		switch {
		case isTrue(a) || isTrue(b):
			other := a
			if isTrue(a) {
				other = b
			}
			s.c.Add(r1cs.One)
			other.subFrom(&s.c)
		case isFalse(a) || isFalse(b):
			other := a
			if isFalse(a) {
				other = b
			}
			other.addTo(&s.c)
		default:
			a.addTo(&s.c)
			b.subFrom(&s.c)
		}
		s.enforce(cs, "enforce equal")
	}
	return nil
}

// ErrXorKey reports a key that is not 256 bits.
var ErrXorKey = errors.New("gadget: xor key must be 256 bits")

// XorBits is rfp gadgets/xor.rs: input bit i is xored with key bit i mod 256, in order.
func XorBits(cs r1cs.ConstraintSystem, key, input []Boolean) ([]Boolean, error) {
	if len(key) != 256 {
		return nil, ErrXorKey
	}
	out := make([]Boolean, len(input))
	for i := range input {
		out[i] = BoolXor(cs, input[i], key[i%256])
	}
	return out, nil
}
