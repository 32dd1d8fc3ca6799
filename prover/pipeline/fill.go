package pipeline

import (
	"fmt"
	"sync"
	"time"
)

// fillProgress is the witness fill of a streamed partition, one handed to the device
// workers before its fill ended (Pipeline.fillStreamed): how much of aux is final, and
// the fill's end and error. It is the backend.AuxProgress of the partition's proof.
type fillProgress struct {
	mu     sync.Mutex
	cond   sync.Cond
	filled int           // aux[:filled] is final
	ended  bool          // the fill returned
	err    error         // its error
	took   time.Duration // the fill's time, set before end (PartitionTiming.Witness)
}

func newFillProgress() *fillProgress {
	f := &fillProgress{}
	f.cond.L = &f.mu
	return f
}

// advance records that aux[:n] is final (prover.ProgressFiller's done).
func (f *fillProgress) advance(n int) {
	f.mu.Lock()
	if n > f.filled {
		f.filled = n
		f.cond.Broadcast()
	}
	f.mu.Unlock()
}

// end records the fill's end: all of aux (n values) is final unless err.
func (f *fillProgress) end(err error, n int) {
	f.mu.Lock()
	f.ended, f.err = true, err
	if err == nil {
		f.filled = max(f.filled, n)
	}
	f.cond.Broadcast()
	f.mu.Unlock()
}

// WaitAux blocks until aux[:n] is final or the fill has failed.
func (f *fillProgress) WaitAux(n int) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	for f.filled < n && !f.ended {
		f.cond.Wait()
	}
	switch {
	case f.filled >= n:
		return nil
	case f.err != nil:
		return f.err
	}
	return fmt.Errorf("pipeline: aux prefix %d asked of a fill of %d", n, f.filled)
}

// WaitAll blocks until the fill has ended and returns its error.
func (f *fillProgress) WaitAll() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	for !f.ended {
		f.cond.Wait()
	}
	return f.err
}

// waitEnded is WaitAll for whoever releases the slot the fill writes into.
func (f *fillProgress) waitEnded() { _ = f.WaitAll() }
