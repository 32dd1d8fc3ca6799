package r1cs

import "github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

// Assignment is a ConstraintSystem that keeps only the values: the witness-only synthesis
// of the pre-compiled path, where A·z, B·z, C·z come later from a recorded Shape (Eval).
// It reports ValuesOnly, so gadgets may skip building rows altogether; rows that are
// still enforced are only counted.
type Assignment struct {
	Inputs, Aux []fr.Element
	rows        int
}

// NewAssignment returns an assignment with ONE allocated, pre-sized from c.
func NewAssignment(c Capacity) *Assignment {
	a := &Assignment{Inputs: make([]fr.Element, 0, max(c.Inputs, 1)), Aux: make([]fr.Element, 0, c.Aux)}
	a.Inputs = append(a.Inputs, CoeffOne())
	return a
}

// ValuesOnly tells gadgets that rows are not needed.
func (a *Assignment) ValuesOnly() bool { return true }

func (a *Assignment) Alloc(value fr.Element) Variable {
	a.Aux = append(a.Aux, value)
	return Aux(len(a.Aux) - 1)
}

func (a *Assignment) AllocInput(value fr.Element) Variable {
	a.Inputs = append(a.Inputs, value)
	return Input(len(a.Inputs) - 1)
}

func (a *Assignment) Enforce(string, *LC, *LC, *LC) { a.rows++ }
func (a *Assignment) Push(string)                   {}
func (a *Assignment) Pop()                          {}

// Z returns the full assignment inputs ‖ aux (a new slice).
func (a *Assignment) Z() []fr.Element {
	z := make([]fr.Element, 0, len(a.Inputs)+len(a.Aux))
	return append(append(z, a.Inputs...), a.Aux...)
}

// EnforcedRows is the number of rows that were enforced anyway (gadgets that honour
// ValuesOnly enforce none).
func (a *Assignment) EnforcedRows() int { return a.rows }
