package r1cs

import (
	"errors"
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// ErrWindowFull is recorded by a Window asked to store past the end of its slices.
var ErrWindowFull = errors.New("r1cs: witness window full")

// Window is a values-only ConstraintSystem that writes allocated values into caller-owned
// slices at absolute positions: NextInput and NextAux start where this window's part of
// the assignment begins, so gadgets synthesized in several windows in parallel number
// their variables exactly as one sequential synthesis would. Rows are dropped (gadgets
// that honour ValuesOnly build none). ONE is not allocated: the caller owns Inputs[0].
// Storing past the end of a slice records ErrWindowFull (see Err) instead of panicking.
type Window struct {
	Inputs, Aux        []fr.Element
	NextInput, NextAux int
	err                error
}

// ValuesOnly tells gadgets that rows are not needed.
func (w *Window) ValuesOnly() bool { return true }

func (w *Window) Alloc(v fr.Element) Variable {
	if w.NextAux < len(w.Aux) {
		w.Aux[w.NextAux] = v
	} else if w.err == nil {
		w.err = fmt.Errorf("%w: aux %d beyond %d slots", ErrWindowFull, w.NextAux, len(w.Aux))
	}
	w.NextAux++
	return Aux(w.NextAux - 1)
}

func (w *Window) AllocInput(v fr.Element) Variable {
	if w.NextInput < len(w.Inputs) {
		w.Inputs[w.NextInput] = v
	} else if w.err == nil {
		w.err = fmt.Errorf("%w: input %d beyond %d slots", ErrWindowFull, w.NextInput, len(w.Inputs))
	}
	w.NextInput++
	return Input(w.NextInput - 1)
}

func (w *Window) Enforce(string, *LC, *LC, *LC) {}
func (w *Window) Push(string)                   {}
func (w *Window) Pop()                          {}

// Err returns the first overflow, or nil.
func (w *Window) Err() error { return w.err }
