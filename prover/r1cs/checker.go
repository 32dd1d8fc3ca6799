package r1cs

import (
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// UnsatisfiedError names the first row whose A·B ≠ C.
type UnsatisfiedError struct {
	Row        int    // index among the circuit rows, in enforcement order
	Annotation string // namespace path / annotation of the row
	A, B, C    fr.Element
}

func (e *UnsatisfiedError) Error() string {
	return fmt.Sprintf("r1cs: row %d (%s) unsatisfied: A=%s B=%s C=%s",
		e.Row, e.Annotation, e.A.String(), e.B.String(), e.C.String())
}

// Checker is a ConstraintSystem that evaluates every row and remembers the first one
// that does not hold. The per-input rows (input · 0 = 0) always hold and are not checked.
type Checker struct {
	namespaces
	inputs, aux []fr.Element
	rows        int
	first       *UnsatisfiedError
}

// NewChecker returns a checker with ONE allocated.
func NewChecker() *Checker {
	c := &Checker{}
	c.AllocInput(CoeffOne())
	return c
}

func (c *Checker) Alloc(value fr.Element) Variable {
	c.aux = append(c.aux, value)
	return Aux(len(c.aux) - 1)
}

func (c *Checker) AllocInput(value fr.Element) Variable {
	c.inputs = append(c.inputs, value)
	return Input(len(c.inputs) - 1)
}

func (c *Checker) Enforce(annotation string, a, b, cc *LC) {
	row := c.rows
	c.rows++
	if c.first != nil {
		return
	}
	av, bv, cv := c.eval(a), c.eval(b), c.eval(cc)
	var ab fr.Element
	ab.Mul(&av, &bv)
	if ab != cv {
		c.first = &UnsatisfiedError{Row: row, Annotation: c.qualify(annotation), A: av, B: bv, C: cv}
	}
}

func (c *Checker) eval(lc *LC) fr.Element {
	if lc == nil {
		return fr.Element{}
	}
	return lc.Eval(c.inputs, c.aux)
}

// Err returns the first unsatisfied row as *UnsatisfiedError, or nil.
func (c *Checker) Err() error {
	if c.first == nil {
		return nil
	}
	return c.first
}

// Sizes returns the counts so far.
func (c *Checker) Sizes() Sizes {
	return Sizes{NumInputs: len(c.inputs), NumAux: len(c.aux), NumConstraints: c.rows}
}

// Inputs returns the public inputs allocated so far, ONE first.
func (c *Checker) Inputs() []fr.Element { return c.inputs }
