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
// part(cs, N−1), and returns what one Recorder's recording of the whole would be
// (capacity: the whole system's, as for NewRecorder). This goroutine synthesizes the head
// and part 0 into the recording; part 0's rows and terms then fix every part's window in
// the recording's buffers (parts are equal), and workers goroutines record parts 1 … N−1
// straight into their windows (newPartRecorderIn) while this goroutine joins them in
// order (Joiner.addIn: coefficient indices and row pointers made the recording's, density
// appended). No part is copied. A part that does not fill its window exactly, or any
// failure, ends the recording with an error (the first in part order; the parts not yet
// started are skipped). part runs on the workers' goroutines; neither may panic (the
// pipeline wraps them in its panic containment).
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
	p0 := NewPartRecorder(layout.partCapacity(capacity), layout, 0)
	if err := recordPart(p0, layout, 0, part); err != nil {
		return nil, fmt.Errorf("part 0: %w", err)
	}
	if err := j.Add(p0); err != nil {
		return nil, fmt.Errorf("part 0: %w", err)
	}
	if layout.N > 1 {
		w := j.reserve(layout.N-1, p0.rows, [3]int{len(p0.A.Col), len(p0.B.Col), len(p0.C.Col)})
		if err := recordPartsIn(j, layout, w, workers, part); err != nil {
			return nil, err
		}
	}
	return j.Finish(), nil
}

// recordPart synthesizes part i into p and checks the variables it allocated.
func recordPart(p *PartRecorder, layout PartsLayout, i int, part func(cs ConstraintSystem, i int) error) error {
	if err := part(p, i); err != nil {
		return err
	}
	if sz := p.Sizes(); sz.NumInputs != layout.InputsPer || sz.NumAux != layout.AuxPer {
		return fmt.Errorf("%w: %d inputs and %d aux, the layout has %d and %d", ErrPartSize, sz.NumInputs, sz.NumAux, layout.InputsPer, layout.AuxPer)
	}
	return nil
}

// recordPartsIn records parts 1 … N−1 in place on workers goroutines, part 1 at window
// w, and joins them in order. Workers run at most partsAhead·workers parts past the one
// being joined (each holds its coefficient table and density bits until then).
func recordPartsIn(j *Joiner, layout PartsLayout, w window, workers int, part func(cs ConstraintSystem, i int) error) error {
	type result struct {
		p   *PartRecorder
		err error
	}
	windows := make([]window, layout.N)
	for i := 1; i < layout.N; i++ {
		windows[i] = w
		w = w.next()
	}
	done := make([]chan result, layout.N)
	for i := range done {
		done[i] = make(chan result, 1)
	}
	slots := make(chan struct{}, partsAhead*workers)
	work := make(chan int)
	var stop atomic.Bool
	go func() {
		defer close(work)
		for i := 1; i < layout.N; i++ {
			slots <- struct{}{} // freed when part i has been joined
			work <- i
		}
	}()
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
				p := newPartRecorderIn(layout, i, &j.rec.shape, windows[i])
				done[i] <- result{p, recordPart(p, layout, i, part)}
			}
		}()
	}
	var first error
	for i := 1; i < layout.N; i++ {
		r := <-done[i]
		if first == nil {
			first = r.err
			if first == nil {
				first = j.addIn(r.p)
			}
			if first != nil {
				first = fmt.Errorf("part %d: %w", i, first)
				stop.Store(true)
			}
		}
		<-slots
	}
	wg.Wait()
	return first
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
