package r1cs

import (
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// Witness is a ConstraintSystem that records the assignment and evaluates every row as it
// is enforced, as bellperson's ProvingAssignment does: A[j], B[j], C[j] are the values of
// row j's three sides. Finish appends the per-input rows.
type Witness struct {
	namespaces
	Inputs, Aux []fr.Element
	A, B, C     []fr.Element
	finished    bool
}

// NewWitness returns a witness builder with ONE allocated, pre-sized from c.
func NewWitness(c Capacity) *Witness {
	rows := c.Constraints + c.Inputs
	w := &Witness{
		Inputs: make([]fr.Element, 0, max(c.Inputs, 1)),
		Aux:    make([]fr.Element, 0, c.Aux),
		A:      make([]fr.Element, 0, rows),
		B:      make([]fr.Element, 0, rows),
		C:      make([]fr.Element, 0, rows),
	}
	w.AllocInput(CoeffOne())
	return w
}

func (w *Witness) Alloc(value fr.Element) Variable {
	w.Aux = append(w.Aux, value)
	return Aux(len(w.Aux) - 1)
}

func (w *Witness) AllocInput(value fr.Element) Variable {
	if w.finished {
		panic("r1cs: AllocInput after Finish")
	}
	w.Inputs = append(w.Inputs, value)
	return Input(len(w.Inputs) - 1)
}

func (w *Witness) Enforce(_ string, a, b, c *LC) {
	w.A = append(w.A, w.eval(a))
	w.B = append(w.B, w.eval(b))
	w.C = append(w.C, w.eval(c))
}

func (w *Witness) eval(lc *LC) fr.Element {
	if lc == nil {
		return fr.Element{}
	}
	return lc.Eval(w.Inputs, w.Aux)
}

// Finish appends bellperson's row input_i · 0 = 0 for every input. It is idempotent.
func (w *Witness) Finish() {
	if w.finished {
		return
	}
	w.finished = true
	for i := range w.Inputs {
		w.A = append(w.A, w.Inputs[i])
		w.B = append(w.B, fr.Element{})
		w.C = append(w.C, fr.Element{})
	}
}

// Sizes returns the counts so far (NumConstraints excludes the per-input rows).
func (w *Witness) Sizes() Sizes {
	n := len(w.A)
	if w.finished {
		n -= len(w.Inputs)
	}
	return Sizes{NumInputs: len(w.Inputs), NumAux: len(w.Aux), NumConstraints: n}
}

// Assignment returns z = inputs ‖ aux, the vector the recorded matrices multiply.
func (w *Witness) Assignment() []fr.Element {
	z := make([]fr.Element, 0, len(w.Inputs)+len(w.Aux))
	return append(append(z, w.Inputs...), w.Aux...)
}

// Check reports whether the builder is finished and has exactly sizes s.
func (w *Witness) Check(s Sizes) error {
	if got := w.Sizes(); got != s || !w.finished {
		return fmt.Errorf("r1cs: witness has %+v (finished=%v), shape wants %+v", got, w.finished, s)
	}
	return nil
}
