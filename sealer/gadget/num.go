package gadget

import (
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/snarkpipe/snarkpipe/prover/r1cs"
)

// AllocatedNum is a field element held by one variable (bellpepper's AllocatedNum).
type AllocatedNum struct {
	Var   r1cs.Variable
	Value fr.Element
}

// AllocNum allocates value as one aux variable. It emits no row.
func AllocNum(cs r1cs.ConstraintSystem, value fr.Element) AllocatedNum {
	return AllocatedNum{Var: cs.Alloc(value), Value: value}
}

// Inputize makes n public: it allocates input i with n's value and emits the row
// i | ONE | n.
func (n AllocatedNum) Inputize(cs r1cs.ConstraintSystem) AllocatedNum {
	in := cs.AllocInput(n.Value)
	if s := rowFor(cs); s != nil {
		s.a.Add(in)
		s.b.Add(r1cs.One)
		s.c.Add(n.Var)
		s.enforce(cs, "inputize")
	}
	return AllocatedNum{Var: in, Value: n.Value}
}

// LC returns 1·n as a fresh linear combination.
func (n AllocatedNum) LC() r1cs.LC { return r1cs.LC{{Var: n.Var, Coeff: r1cs.CoeffOne()}} }

// Num is a linear combination together with its value (bellpepper's Num). Building one
// emits nothing; it becomes a row only when a gadget enforces it.
type Num struct {
	LC    r1cs.LC
	Value fr.Element
}

// NumFrom returns 1·n as a Num.
func NumFrom(n AllocatedNum) Num { return Num{LC: n.LC(), Value: n.Value} }

// AddBoolWithCoeff adds coeff·lc(b) (bellpepper's add_bool_with_coeff).
func (n *Num) AddBoolWithCoeff(b Boolean, coeff *fr.Element) {
	b.AddToLC(&n.LC, coeff)
	if b.Value {
		n.Value.Add(&n.Value, coeff)
	}
}

// AddScaled adds coeff·m.
func (n *Num) AddScaled(coeff *fr.Element, m Num) {
	n.LC.AddScaledLC(coeff, m.LC)
	var t fr.Element
	t.Mul(coeff, &m.Value)
	n.Value.Add(&n.Value, &t)
}

// Equal enforces a = b with the row a | ONE | b (rfp constraint::equal). No aux.
func Equal(cs r1cs.ConstraintSystem, a, b AllocatedNum) {
	if s := rowFor(cs); s != nil {
		s.a.Add(a.Var)
		s.b.Add(r1cs.One)
		s.c.Add(b.Var)
		s.enforce(cs, "equal")
	}
}

// Add allocates r = a + b with the row a + b | ONE | r (rfp constraint::add).
func Add(cs r1cs.ConstraintSystem, a, b AllocatedNum) AllocatedNum {
	var v fr.Element
	v.Add(&a.Value, &b.Value)
	r := AllocNum(cs, v)
	if s := rowFor(cs); s != nil {
		s.a.Add(a.Var)
		s.a.Add(b.Var)
		s.b.Add(r1cs.One)
		s.c.Add(r.Var)
		s.enforce(cs, "add")
	}
	return r
}

// Encode is rfp's encode(key, value) = key + value, used for replica = label + data.
func Encode(cs r1cs.ConstraintSystem, key, value AllocatedNum) AllocatedNum {
	return Add(cs, key, value)
}

// Sub allocates r = a − b with the row r + b | ONE | a (rfp constraint::sub; decode).
func Sub(cs r1cs.ConstraintSystem, a, b AllocatedNum) AllocatedNum {
	var v fr.Element
	v.Sub(&a.Value, &b.Value)
	r := AllocNum(cs, v)
	if s := rowFor(cs); s != nil {
		s.a.Add(r.Var)
		s.a.Add(b.Var)
		s.b.Add(r1cs.One)
		s.c.Add(a.Var)
		s.enforce(cs, "subtraction constraint")
	}
	return r
}

// Mul allocates r = a·b with the row a | b | r.
func Mul(cs r1cs.ConstraintSystem, a, b AllocatedNum) AllocatedNum {
	var v fr.Element
	v.Mul(&a.Value, &b.Value)
	r := AllocNum(cs, v)
	if s := rowFor(cs); s != nil {
		s.a.Add(a.Var)
		s.b.Add(b.Var)
		s.c.Add(r.Var)
		s.enforce(cs, "multiplication constraint")
	}
	return r
}

// Square allocates r = a² with the row a | a | r.
func Square(cs r1cs.ConstraintSystem, a AllocatedNum) AllocatedNum { return Mul(cs, a, a) }

// ConditionallyReverse returns (b, a) when cond is true and (a, b) otherwise
// (bellpepper's conditionally_reverse): aux c, row a − b | cond | a − c; then aux d, row
// b − a | cond | b − d.
func ConditionallyReverse(cs r1cs.ConstraintSystem, a, b AllocatedNum, cond Boolean) (AllocatedNum, AllocatedNum) {
	first, second := a.Value, b.Value
	if cond.Value {
		first, second = b.Value, a.Value
	}
	c := AllocNum(cs, first)
	if s := rowFor(cs); s != nil {
		s.a.Add(a.Var)
		s.a.Sub(b.Var)
		cond.addTo(&s.b)
		s.c.Add(a.Var)
		s.c.Sub(c.Var)
		s.enforce(cs, "first conditional reversal")
	}

	d := AllocNum(cs, second)
	if s := rowFor(cs); s != nil {
		s.a.Add(b.Var)
		s.a.Sub(a.Var)
		cond.addTo(&s.b)
		s.c.Add(b.Var)
		s.c.Sub(d.Var)
		s.enforce(cs, "second conditional reversal")
	}
	return c, d
}

// Add returns n + m (bellpepper Num::add).
func (n Num) Add(m Num) Num {
	out := Num{LC: make(r1cs.LC, 0, len(n.LC)+len(m.LC))}
	out.LC.AddLC(n.LC)
	out.LC.AddLC(m.LC)
	out.Value.Add(&n.Value, &m.Value)
	return out
}

// Scale returns c·n (bellpepper Num::scale).
func (n Num) Scale(c *fr.Element) Num {
	out := Num{LC: make(r1cs.LC, 0, len(n.LC))}
	out.LC.AddScaledLC(c, n.LC)
	out.Value.Mul(&n.Value, c)
	return out
}
