package r1cs

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
)

// ErrPartSize reports a part that allocated other numbers of variables than its layout.
var ErrPartSize = errors.New("r1cs: part allocated other sizes than its layout")

// errPartsStopped marks the parts skipped after another part failed.
var errPartsStopped = errors.New("r1cs: recording stopped")

// partsAhead bounds the parts recorded ahead of the one being joined, per worker: the
// parts held at once stay a small fraction of the recording.
const partsAhead = 4

// RecordParts records the system that is ONE, head(cs), then part(cs, 0), …,
// part(cs, N−1): this goroutine synthesizes the head into the recording, workers
// goroutines synthesize the parts into their own PartRecorders at the offsets the layout
// gives, and this goroutine joins them in order (Joiner). The result equals one Recorder's
// recording of the whole (capacity: the whole system's, as for NewRecorder). After a part
// fails, the parts not yet started are skipped and the first error in part order is
// returned. part runs on the workers' goroutines; neither may panic (the pipeline wraps
// them in its panic containment).
func RecordParts(capacity Capacity, layout PartsLayout, workers int, head func(cs ConstraintSystem) error, part func(cs ConstraintSystem, i int) error) (*Shape, error) {
	if layout.N < 1 || layout.InputsPer < 0 || layout.AuxPer < 0 || layout.HeadInputs < 0 || layout.HeadAux < 0 || workers < 1 {
		return nil, fmt.Errorf("r1cs: parts layout %+v on %d workers", layout, workers)
	}
	j := NewJoiner(capacity)
	if err := head(j.Head()); err != nil {
		return nil, fmt.Errorf("head: %w", err)
	}
	if in, aux := layout.first(0); in != j.rec.shape.NumInputs || aux != j.rec.shape.NumAux {
		return nil, fmt.Errorf("%w: the head allocated %d inputs and %d aux, the layout has %d and %d", ErrPartSize, j.rec.shape.NumInputs-1, j.rec.shape.NumAux, layout.HeadInputs, layout.HeadAux)
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
				p := NewPartRecorder(partCap, layout, i)
				err := part(p, i)
				if sz := p.Sizes(); err == nil && (sz.NumInputs != layout.InputsPer || sz.NumAux != layout.AuxPer) {
					err = fmt.Errorf("%w: %d inputs and %d aux, the layout has %d and %d", ErrPartSize, sz.NumInputs, sz.NumAux, layout.InputsPer, layout.AuxPer)
				}
				done[i] <- result{p, err}
			}
		}()
	}
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
