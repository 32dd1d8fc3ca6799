package porep

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
	head := &valueSink{inputs: inputs[:headerInputs], aux: aux, nIn: 1}
	h, err := c.synthesizeHeader(head)
	if err != nil {
		return err
	}
	if head.err != nil || head.nIn != headerInputs {
		return fmt.Errorf("%w: header: %v", ErrWitnessLayout, head.err)
	}
	rest := len(aux) - head.nAux
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
				errs[i] = c.fillChallenge(i, h, inputs, aux, head.nAux+i*per, per)
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
	s := &valueSink{inputs: inputs[:in+inputsPerChallenge], aux: aux[:off+n], nIn: in, nAux: off}
	if err := c.synthesizeChallenge(s, &c.Challenges[i], h); err != nil {
		return fmt.Errorf("porep: challenge %d: %w", i, err)
	}
	if s.err != nil || s.nAux != off+n || s.nIn != in+inputsPerChallenge {
		return fmt.Errorf("%w: challenge %d allocated %d aux and %d inputs, want %d and %d (%v)",
			ErrWitnessLayout, i, s.nAux-off, s.nIn-in, n, inputsPerChallenge, s.err)
	}
	return nil
}

// valueSink is a ConstraintSystem that stores allocated values at consecutive positions of
// caller-owned slices and drops every row (gadgets that honour ValuesOnly build none). Variables are numbered by absolute position,
// so gadgets running in a window see the same variables as in a full synthesis. Writing
// past the end of a slice records an error instead of panicking.
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
