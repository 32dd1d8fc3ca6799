package post

import (
	"errors"
	"fmt"
	"runtime"
	"sync"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/snarkpipe/snarkpipe/prover"
	"github.com/snarkpipe/snarkpipe/prover/r1cs"
	"github.com/snarkpipe/snarkpipe/sealer/gadget"
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
				s := &valueSink{inputs: inputs[:1+(i+1)*inPer], aux: aux[:(i+1)*per], nIn: 1 + i*inPer, nAux: i * per}
				if err := c.synthesizeSector(s, &c.Sectors[i]); err != nil {
					errs[i] = fmt.Errorf("post: sector %d: %w", i, err)
				} else if s.err != nil || s.nAux != (i+1)*per || s.nIn != 1+(i+1)*inPer {
					errs[i] = fmt.Errorf("%w: sector %d allocated %d aux, want %d (%v)", ErrWitnessLayout, i, s.nAux-i*per, per, s.err)
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

// valueSink is a ConstraintSystem that stores allocated values at consecutive positions of
// caller-owned slices and drops every row; variables carry absolute positions. Writing
// past a slice records an error instead of panicking.
type valueSink struct {
	inputs, aux []fr.Element
	nIn, nAux   int
	err         error
}

func (s *valueSink) Alloc(v fr.Element) r1cs.Variable {
	if s.nAux < len(s.aux) {
		s.aux[s.nAux] = v
	} else if s.err == nil {
		s.err = fmt.Errorf("%w: aux %d beyond %d slots", ErrWitnessLayout, s.nAux, len(s.aux))
	}
	s.nAux++
	return r1cs.Aux(s.nAux - 1)
}

func (s *valueSink) AllocInput(v fr.Element) r1cs.Variable {
	if s.nIn < len(s.inputs) {
		s.inputs[s.nIn] = v
	} else if s.err == nil {
		s.err = fmt.Errorf("%w: input %d beyond %d slots", ErrWitnessLayout, s.nIn, len(s.inputs))
	}
	s.nIn++
	return r1cs.Input(s.nIn - 1)
}

// ValuesOnly tells the gadgets (gadget.ValuesOnlySystem) to skip building rows.
func (s *valueSink) ValuesOnly() bool { return true }

func (s *valueSink) Enforce(string, *r1cs.LC, *r1cs.LC, *r1cs.LC) {}
func (s *valueSink) Push(string)                                  {}
func (s *valueSink) Pop()                                         {}

var _ gadget.ValuesOnlySystem = (*valueSink)(nil)
