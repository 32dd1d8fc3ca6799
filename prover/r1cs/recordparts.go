package r1cs

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
)

// PartsLayout describes a system recorded in parts: N parts after ONE, each allocating
// InputsPer inputs and AuxPer aux variables.
type PartsLayout struct {
	N, InputsPer, AuxPer int
}

// ErrPartSize reports a part that allocated other numbers of variables than its layout.
var ErrPartSize = errors.New("r1cs: part allocated other sizes than its layout")

// errPartsStopped marks the parts skipped after another part failed.
var errPartsStopped = errors.New("r1cs: recording stopped")

// partsAhead bounds the parts recorded ahead of the one being joined, per worker: the
// parts held at once stay a small fraction of the recording.
const partsAhead = 4

// RecordParts records the system that is ONE followed by synth(cs, 0), …, synth(cs, N−1):
// workers goroutines synthesize parts into their own PartRecorders, at the offsets the
// layout gives, and this goroutine joins them in order (Joiner). The result equals one
// Recorder's recording of the whole (capacity: the whole system's, as for NewRecorder).
// After a part fails, the parts not yet started are skipped and the first error in part
// order is returned. synth runs on the workers' goroutines and must not panic (the
// pipeline wraps it in its panic containment).
func RecordParts(capacity Capacity, layout PartsLayout, workers int, synth func(cs ConstraintSystem, i int) error) (*Shape, error) {
	if layout.N < 1 || layout.InputsPer < 0 || layout.AuxPer < 0 || workers < 1 {
		return nil, fmt.Errorf("r1cs: %d parts of %d inputs and %d aux on %d workers", layout.N, layout.InputsPer, layout.AuxPer, workers)
	}
	n := layout.N
	type result struct {
		p   *PartRecorder
		err error
	}
	done := make([]chan result, n)
	for i := range done {
		done[i] = make(chan result, 1)
	}
	slots := make(chan struct{}, partsAhead*workers)
	work := make(chan int)
	var stop atomic.Bool
	go func() {
		defer close(work)
		for i := range n {
			slots <- struct{}{} // freed when part i has been joined
			work <- i
		}
	}()
	partCap := layout.partCapacity(capacity)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				if stop.Load() {
					done[i] <- result{err: errPartsStopped}
					continue
				}
				p := NewPartRecorder(partCap, 1+i*layout.InputsPer, i*layout.AuxPer)
				err := synth(p, i)
				if sz := p.Sizes(); err == nil && (sz.NumInputs != layout.InputsPer || sz.NumAux != layout.AuxPer) {
					err = fmt.Errorf("%w: %d inputs and %d aux, the layout has %d and %d", ErrPartSize, sz.NumInputs, sz.NumAux, layout.InputsPer, layout.AuxPer)
				}
				done[i] <- result{p, err}
			}
		}()
	}
	j := NewJoiner(capacity)
	var first error
	for i := range n {
		r := <-done[i]
		if first == nil {
			first = r.err
			if first == nil {
				first = j.Add(r.p)
			}
			if first != nil {
				first = fmt.Errorf("part %d: %w", i, first)
				stop.Store(true)
			}
		}
		<-slots
	}
	wg.Wait()
	if first != nil {
		return nil, first
	}
	return j.Finish(), nil
}

// partCapacity sizes one part's recorder: the whole system's rows and terms shared out
// evenly, plus a little (a part that needs more grows its buffers).
func (l PartsLayout) partCapacity(c Capacity) Capacity {
	share := func(x int) int { return x/l.N + x/(8*l.N) + 16 }
	pc := Capacity{Inputs: l.InputsPer, Aux: l.AuxPer, Constraints: share(c.Constraints), NonZeros: share(c.NonZeros)}
	for i, m := range c.MatrixNonZeros {
		if m > 0 {
			pc.MatrixNonZeros[i] = share(m)
		}
	}
	return pc
}
