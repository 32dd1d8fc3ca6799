package pipeline

import (
	"errors"
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/snarkpipe/snarkpipe/prover"
	"github.com/snarkpipe/snarkpipe/prover/r1cs"
)

// ErrCircuitChanged reports a circuit whose synthesis no longer matches its recording
// (other sizes). The recording is dropped and the next job records the circuit again.
var ErrCircuitChanged = errors.New("pipeline: circuit does not match its recording")

// assignCS is the witness-only constraint system: allocations write their values straight
// into a pooled assignment vector, rows are ignored (the recorded matrices evaluate them).
type assignCS struct {
	inputs, aux []fr.Element
	nIn, nAux   int
}

func (w *assignCS) Alloc(v fr.Element) r1cs.Variable {
	if w.nAux < len(w.aux) {
		w.aux[w.nAux] = v
	}
	w.nAux++
	return r1cs.Aux(w.nAux - 1)
}

func (w *assignCS) AllocInput(v fr.Element) r1cs.Variable {
	if w.nIn < len(w.inputs) {
		w.inputs[w.nIn] = v
	}
	w.nIn++
	return r1cs.Input(w.nIn - 1)
}

func (w *assignCS) Enforce(string, *r1cs.LC, *r1cs.LC, *r1cs.LC) {}
func (w *assignCS) Push(string)                                  {}
func (w *assignCS) Pop()                                         {}

// ErrCircuitPanicked reports a circuit (Synthesize or FillWitness) that panicked; the
// panic is contained to its job.
var ErrCircuitPanicked = errors.New("pipeline: circuit panicked")

// contain runs f, turning a panic into ErrCircuitPanicked.
func contain(id prover.CircuitID, f func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%w: %s: %v", ErrCircuitPanicked, id, r)
		}
	}()
	return f()
}

// fillAssignment writes c's full assignment z = inputs ‖ aux (len(z) = inputs + aux of the
// recorded shape) through its WitnessFiller when it has one, by witness-only synthesis
// otherwise.
func fillAssignment(c prover.Circuit, s *r1cs.Shape, z []fr.Element) error {
	inputs, aux := z[:s.NumInputs], z[s.NumInputs:]
	inputs[0] = r1cs.CoeffOne()
	if f, ok := c.(prover.WitnessFiller); ok {
		return contain(c.ID(), func() error { return f.FillWitness(inputs, aux) })
	}
	w := &assignCS{inputs: inputs, aux: aux, nIn: 1}
	if err := contain(c.ID(), func() error { return c.Synthesize(w) }); err != nil {
		return err
	}
	if w.nIn != s.NumInputs || w.nAux != s.NumAux {
		return fmt.Errorf("%w: %s allocated %d inputs and %d aux, recording has %d and %d",
			ErrCircuitChanged, c.ID(), w.nIn, w.nAux, s.NumInputs, s.NumAux)
	}
	return nil
}
