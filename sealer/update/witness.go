package update

import (
	"errors"
	"fmt"
	"runtime"
	"sync"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/snarkpipe/snarkpipe/prover"
	"github.com/snarkpipe/snarkpipe/prover/r1cs"
)

var _ prover.WitnessFiller = (*Circuit)(nil)

// ErrWitnessLayout reports witness buffers whose sizes do not fit the circuit.
var ErrWitnessLayout = errors.New("update: witness buffers do not fit the circuit")

// FillWitness writes the assignment into inputs and aux (prover.WitnessFiller) without
// emitting rows. The partition-wide prefix is filled first; every challenge then allocates
// the same number of aux, so challenges fill their own windows in parallel. The result
// equals Synthesize into a witness builder.
func (c *Circuit) FillWitness(inputs, aux []fr.Element) error {
	if err := c.check(); err != nil {
		return err
	}
	if len(inputs) != NumInputs {
		return fmt.Errorf("%w: %d input slots, the circuit has %d", ErrWitnessLayout, len(inputs), NumInputs)
	}
	head := &r1cs.Window{Inputs: inputs, Aux: aux, NextInput: 1}
	pre, err := c.synthesizePrefix(head)
	if err != nil {
		return err
	}
	if head.Err() != nil || head.NextInput != NumInputs {
		return fmt.Errorf("%w: prefix allocated %d inputs (%v)", ErrWitnessLayout, head.NextInput, head.Err())
	}
	n := len(c.Challenges)
	rest := len(aux) - head.NextAux
	if rest < 0 || rest%n != 0 {
		return fmt.Errorf("%w: %d aux slots after a prefix of %d do not split into %d challenges", ErrWitnessLayout, len(aux), head.NextAux, n)
	}
	per := rest / n
	errs := make([]error, n)
	work := make(chan int)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				start := head.NextAux + i*per
				s := &r1cs.Window{Aux: aux[:start+per], NextAux: start}
				if err := c.synthesizeChallenge(s, pre, i); err != nil {
					errs[i] = fmt.Errorf("update: challenge %d: %w", i, err)
				} else if s.Err() != nil || s.NextAux != start+per || s.NextInput != 0 {
					errs[i] = fmt.Errorf("%w: challenge %d allocated %d aux, want %d (%v)", ErrWitnessLayout, i, s.NextAux-start, per, s.Err())
				}
			}
		}()
	}
	for i := range n {
		work <- i
	}
	close(work)
	wg.Wait()
	return errors.Join(errs...)
}
