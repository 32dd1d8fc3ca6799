package porep

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
var ErrWitnessLayout = errors.New("porep: witness buffers do not fit the circuit")

// headerInputs is the number of inputs before the challenges (ONE, replica_id, comm_d,
// comm_r) and inputsPerChallenge the inputs each challenge adds.
const (
	headerInputs       = 4
	inputsPerChallenge = 18
)

// FillWitness writes the circuit's assignment into inputs and aux (prover.WitnessFiller)
// without emitting rows: the gadgets run with a system that only stores values. The
// header runs first; then the challenges, which each allocate the same number of
// variables, fill their own windows of aux and inputs in parallel. The result equals
// what Synthesize allocates into a witness builder (tested).
func (c *Circuit) FillWitness(inputs, aux []fr.Element) error {
	if err := c.check(); err != nil {
		return err
	}
	if len(inputs) != c.NumInputs() {
		return fmt.Errorf("%w: %d input slots, the circuit has %d", ErrWitnessLayout, len(inputs), c.NumInputs())
	}
	head := &r1cs.Window{Inputs: inputs[:headerInputs], Aux: aux, NextInput: 1}
	h, err := c.synthesizeHeader(head)
	if err != nil {
		return err
	}
	if head.Err() != nil || head.NextInput != headerInputs {
		return fmt.Errorf("%w: header: %v", ErrWitnessLayout, head.Err())
	}
	rest := len(aux) - head.NextAux
	if rest%len(c.Challenges) != 0 {
		return fmt.Errorf("%w: %d aux slots after the header do not split into %d challenges", ErrWitnessLayout, rest, len(c.Challenges))
	}
	per := rest / len(c.Challenges)
	errs := make([]error, len(c.Challenges))
	work := make(chan int)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(c.Challenges)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				errs[i] = c.fillChallenge(i, h, inputs, aux, head.NextAux+i*per, per)
			}
		}()
	}
	for i := range c.Challenges {
		work <- i
	}
	close(work)
	wg.Wait()
	return errors.Join(errs...)
}

// fillChallenge runs challenge i into its windows: aux[off, off+n) and its 18 inputs.
func (c *Circuit) fillChallenge(i int, h header, inputs, aux []fr.Element, off, n int) error {
	in := headerInputs + i*inputsPerChallenge
	s := &r1cs.Window{Inputs: inputs[:in+inputsPerChallenge], Aux: aux[:off+n], NextInput: in, NextAux: off}
	if err := c.synthesizeChallenge(s, &c.Challenges[i], h); err != nil {
		return fmt.Errorf("porep: challenge %d: %w", i, err)
	}
	if s.Err() != nil || s.NextAux != off+n || s.NextInput != in+inputsPerChallenge {
		return fmt.Errorf("%w: challenge %d allocated %d aux and %d inputs, want %d and %d (%v)",
			ErrWitnessLayout, i, s.NextAux-off, s.NextInput-in, n, inputsPerChallenge, s.Err())
	}
	return nil
}
