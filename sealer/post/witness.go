package post

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
var ErrWitnessLayout = errors.New("post: witness buffers do not fit the circuit")

// FillWitness writes the assignment into inputs and aux (prover.WitnessFiller) without
// emitting rows. Every sector allocates the same number of variables, so sectors fill
// their own windows in parallel; the result equals Synthesize into a witness builder.
func (c *Circuit) FillWitness(inputs, aux []fr.Element) error {
	if err := c.check(); err != nil {
		return err
	}
	if len(inputs) != c.NumInputs() {
		return fmt.Errorf("%w: %d input slots, the circuit has %d", ErrWitnessLayout, len(inputs), c.NumInputs())
	}
	if len(aux)%len(c.Sectors) != 0 {
		return fmt.Errorf("%w: %d aux slots do not split into %d sectors", ErrWitnessLayout, len(aux), len(c.Sectors))
	}
	per, inPer := len(aux)/len(c.Sectors), 1+c.ChallengeCount
	errs := make([]error, len(c.Sectors))
	work := make(chan int)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(c.Sectors)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				s := &r1cs.Window{Inputs: inputs[:1+(i+1)*inPer], Aux: aux[:(i+1)*per], NextInput: 1 + i*inPer, NextAux: i * per}
				if err := c.synthesizeSector(s, &c.Sectors[i]); err != nil {
					errs[i] = fmt.Errorf("post: sector %d: %w", i, err)
				} else if s.Err() != nil || s.NextAux != (i+1)*per || s.NextInput != 1+(i+1)*inPer {
					errs[i] = fmt.Errorf("%w: sector %d allocated %d aux, want %d (%v)", ErrWitnessLayout, i, s.NextAux-i*per, per, s.Err())
				}
			}
		}()
	}
	for i := range c.Sectors {
		work <- i
	}
	close(work)
	wg.Wait()
	return errors.Join(errs...)
}
