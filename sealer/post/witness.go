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

var _ prover.ProgressFiller = (*Circuit)(nil)

// ErrWitnessLayout reports witness buffers whose sizes do not fit the circuit.
var ErrWitnessLayout = errors.New("post: witness buffers do not fit the circuit")

// FillWitness writes the assignment into inputs and aux (prover.WitnessFiller) without
// emitting rows. Every sector allocates the same number of variables, so sectors fill
// their own windows in parallel; the result equals Synthesize into a witness builder.
func (c *Circuit) FillWitness(inputs, aux []fr.Element) error {
	return c.FillWitnessProgress(inputs, aux, nil)
}

// FillWitnessProgress is FillWitness reporting, through done (nil: not at all), the aux
// prefix of the sectors completed so far (prover.ProgressFiller). Sectors are taken in
// order, so the prefix follows the fill closely.
func (c *Circuit) FillWitnessProgress(inputs, aux []fr.Element, done func(n int)) error {
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
	prefix := sectorPrefix{finished: make([]bool, len(c.Sectors)), per: per, done: done}
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
				if errs[i] == nil {
					prefix.finish(i)
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

// sectorPrefix tracks which sectors are filled and reports the aux prefix of the
// sectors 0 … k−1 all filled whenever it grows. A failed sector is never finished, so
// the prefix stops before it.
type sectorPrefix struct {
	mu       sync.Mutex
	finished []bool
	next     int // sectors [0, next) are all filled
	per      int
	done     func(n int)
}

func (p *sectorPrefix) finish(i int) {
	if p.done == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.finished[i] = true
	old := p.next
	for p.next < len(p.finished) && p.finished[p.next] {
		p.next++
	}
	if p.next > old {
		p.done(p.next * p.per)
	}
}
