package update

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
	head := &valueSink{inputs: inputs, aux: aux, nIn: 1}
	pre, err := c.synthesizePrefix(head)
	if err != nil {
		return err
	}
	if head.err != nil || head.nIn != NumInputs {
		return fmt.Errorf("%w: prefix allocated %d inputs (%v)", ErrWitnessLayout, head.nIn, head.err)
	}
	n := len(c.Challenges)
	rest := len(aux) - head.nAux
	if rest < 0 || rest%n != 0 {
		return fmt.Errorf("%w: %d aux slots after a prefix of %d do not split into %d challenges", ErrWitnessLayout, len(aux), head.nAux, n)
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
				start := head.nAux + i*per
				s := &valueSink{aux: aux[:start+per], nAux: start}
				if err := c.synthesizeChallenge(s, pre, i); err != nil {
					errs[i] = fmt.Errorf("update: challenge %d: %w", i, err)
				} else if s.err != nil || s.nAux != start+per || s.nIn != 0 {
					errs[i] = fmt.Errorf("%w: challenge %d allocated %d aux, want %d (%v)", ErrWitnessLayout, i, s.nAux-start, per, s.err)
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

// valueSink is a ConstraintSystem that stores allocated values at consecutive positions of
// caller-owned slices and drops every row. Writing past a slice records an error instead
// of panicking.
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
