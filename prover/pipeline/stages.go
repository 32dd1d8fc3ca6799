package pipeline

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/snarkpipe/snarkpipe/prover"
	"github.com/snarkpipe/snarkpipe/prover/groth16"
	"github.com/snarkpipe/snarkpipe/prover/r1cs"
)

// synthStage is the synthesis pool: each worker takes the highest-priority queued
// partition, admits it on the host (memory and residency), fills its witness into a pooled
// slot, evaluates A·z, B·z, C·z from the recording or bit-packs the witness (synthMode),
// and hands it off.
type synthStage struct {
	p  *Pipeline
	wg sync.WaitGroup
}

// Start starts workers that take any partition and critical workers that take only
// Critical ones.
func (s *synthStage) Start(workers, critical int) {
	for w := 0; w < workers; w++ {
		s.wg.Add(1)
		go s.run(fmt.Sprintf("synth%d", w), Low)
	}
	for w := 0; w < critical; w++ {
		s.wg.Add(1)
		go s.run(fmt.Sprintf("synth-critical%d", w), Critical)
	}
}

// Close waits for the workers; the run queue must have been closed.
func (s *synthStage) Close() { s.wg.Wait() }

// run takes partitions of priority at least min, highest first.
func (s *synthStage) run(name string, min Priority) {
	defer s.wg.Done()
	p := s.p
	for {
		part, err := p.runq.popAtLeast(context.Background(), min)
		if err != nil {
			return
		}
		if part.job.ctx.Err() != nil {
			continue
		}
		handedOff, err := p.synthesize(name, part)
		if err != nil {
			p.fail(part, err)
			continue
		}
		if handedOff { // streamed: pushed before its fill, which has ended since
			continue
		}
		// Once pushed, the partition belongs to the device workers: not touched here again.
		if err := p.handoff.push(part.job.ctx, part); err != nil {
			p.fail(part, err)
		}
	}
}

// synthesize admits part on the host, fills its witness into a slot and prepares its
// upload. A streamed partition (streamed) is handed off before its fill instead, and
// handedOff says so: it then belongs to the device workers even if its fill fails.
func (p *Pipeline) synthesize(worker string, part *partition) (handedOff bool, err error) {
	ctx := part.job.ctx
	start := time.Now()
	part.t.SynthStart = start
	part.worker = worker
	h, err := p.circuits.prepare(ctx, part.circuit)
	part.t.Prepare = time.Since(start)
	if err != nil {
		return false, err
	}
	part.hint = h
	admit := time.Now()
	if err := p.acquireHost(ctx, part); err != nil {
		return false, err
	}
	if part.state.key.String() != h.Key {
		// The resident recording comes from other circuit code than the one just probed
		// (it changed since the circuit was loaded): retire it and load the new one.
		p.host.retire(part.host.entry)
		p.releaseHost(part, true)
		part.host = nil
		if err := p.acquireHost(ctx, part); err != nil {
			return false, err
		}
		if part.state.key.String() != h.Key {
			return false, fmt.Errorf("%w: %s: resident recording does not match", ErrCircuitChanged, part.job.Circuit)
		}
	}
	if part.t.Admission > time.Millisecond { // waits worth seeing on the timeline
		p.trace.span("wait host memory", worker, admit, admit.Add(part.t.Admission), part)
	}
	sl, err := p.host.allocSlot(part.host, p.hostSlot(h))
	if err != nil {
		return false, err
	}
	part.slot = sl
	p.pinSlot(part)
	if pf, ok := p.streamed(part); ok {
		return true, p.fillStreamed(worker, part, pf)
	}
	st := part.state
	t := time.Now()
	if err := fillAssignment(part.circuit, st.shape, sl.z); err != nil {
		if errors.Is(err, ErrCircuitChanged) {
			p.distrust(part)
		}
		return false, err
	}
	part.t.Witness = time.Since(t)
	if err := p.prepareUpload(part); err != nil {
		return false, err
	}
	part.t.SynthEnd = time.Now()
	p.trace.span("synthesize", worker, part.t.SynthStart, part.t.SynthEnd, part)
	p.metrics.stage.WithLabelValues("synthesize").Observe(part.t.SynthEnd.Sub(start).Seconds())
	return false, nil
}

// streamed reports whether part is proved while its witness is filled: its circuit
// fills aux in order (prover.ProgressFiller), the devices take z from the slot as it is
// (no host-evaluated rows; a packed path is not used for it), and Config.WholeWitness
// is off.
func (p *Pipeline) streamed(part *partition) (prover.ProgressFiller, bool) {
	if p.cfg.WholeWitness || p.mode.hostEval {
		return nil, false
	}
	pf, ok := part.circuit.(prover.ProgressFiller)
	return pf, ok
}

// fillStreamed hands part to the device workers and then fills its witness, reporting
// the aux prefix filled through part.fill, so that a device worker can start on it
// (groth16.ResidentCircuit.ProveStreamed). From the hand-off on the partition is the
// device workers': a failed fill reaches them through part.fill, and they release the
// slot only once the fill has ended (releaseHost). It returns an error only when the
// hand-off failed, before the fill.
func (p *Pipeline) fillStreamed(worker string, part *partition, pf prover.ProgressFiller) error {
	sl, shape := part.slot, part.state.shape
	fill := newFillProgress()
	part.fill = fill
	part.t.SynthEnd = time.Now()
	if err := p.handoff.push(part.job.ctx, part); err != nil {
		part.fill = nil
		return err
	}
	t := time.Now()
	inputs, aux := sl.z[:shape.NumInputs], sl.z[shape.NumInputs:]
	inputs[0] = r1cs.CoeffOne()
	err := contain(part.circuit.ID(), func() error { return pf.FillWitnessProgress(inputs, aux, fill.advance) })
	if errors.Is(err, ErrCircuitChanged) {
		p.distrust(part)
	}
	end := time.Now()
	fill.took = end.Sub(t)
	fill.end(err, len(aux))
	p.trace.span("synthesize", worker, t, end, part)
	p.metrics.stage.WithLabelValues("synthesize").Observe(end.Sub(part.t.SynthStart).Seconds())
	return nil
}

// distrust makes the next job of part's circuit probe its recording key again and load
// a fresh recording, after a sign that the resident one does not match the circuit.
func (p *Pipeline) distrust(part *partition) {
	p.circuits.forget(part.job.Circuit)
	if part.entry != nil {
		p.host.retire(part.entry)
	}
}

// releaseHost returns a partition's host grant (slot back to the pool), once a
// streamed partition's fill has stopped writing into the slot.
func (p *Pipeline) releaseHost(part *partition, keepSlot bool) {
	if part.fill != nil {
		part.fill.waitEnded()
	}
	if part.host != nil {
		p.host.release(part.host, keepSlot)
	}
	part.slot = nil
}

// fail ends a partition with err: its memory is released and its job fails.
func (p *Pipeline) fail(part *partition, err error) {
	p.releaseHost(part, true)
	if ctxErr := part.job.ctx.Err(); ctxErr != nil && errors.Is(err, ctxErr) {
		err = context.Cause(part.job.ctx)
	}
	p.metrics.partitions.WithLabelValues(part.job.Kind, "failed").Inc()
	part.job.finish(fmt.Errorf("pipeline: job %d partition %d (%s): %w", part.job.ID, part.index, part.job.Circuit, err))
}

// deviceStage runs the workers of one device: each takes the highest-priority synthesized
// partition, admits it on the device (memory and proving key), proves it, and passes the
// proof to finalization. Running proofs are never interrupted.
type deviceStage struct {
	p   *Pipeline
	dev *device
	wg  sync.WaitGroup
}

func (s *deviceStage) Start(workers int) {
	for w := 0; w < workers; w++ {
		s.wg.Add(1)
		go s.run(fmt.Sprintf("%s/w%d", s.dev.arena.name, w))
	}
}

// Close waits for the workers; the hand-off must have been closed.
func (s *deviceStage) Close() { s.wg.Wait() }

func (s *deviceStage) run(name string) {
	defer s.wg.Done()
	p := s.p
	for {
		part, err := p.handoff.pop(context.Background())
		if err != nil {
			return
		}
		batch := []*partition{part}
		if p.cfg.MaxBatch > 1 {
			batch = append(batch, p.handoff.popBatch(part, p.cfg.MaxBatch-1, p.cfg.MaxBatchWait)...)
		}
		batch = p.dropCancelled(batch)
		if len(batch) == 0 {
			continue
		}
		if err := p.prove(name, s.dev, batch); err != nil {
			for _, part := range batch {
				p.fail(part, err)
			}
			continue
		}
		for _, part := range batch {
			p.finalq <- part
		}
	}
}

// dropCancelled fails the partitions whose job has ended and returns the others.
func (p *Pipeline) dropCancelled(batch []*partition) []*partition {
	live := batch[:0]
	for _, part := range batch {
		if err := part.job.ctx.Err(); err != nil {
			p.fail(part, err)
			continue
		}
		live = append(live, part)
	}
	return live
}

// batchContext ends when every partition's job has ended: a batch is not abandoned while
// one of its jobs still wants its proof.
func batchContext(batch []*partition) (context.Context, func()) {
	if len(batch) == 1 {
		return batch[0].job.ctx, func() {}
	}
	ctx, cancel := context.WithCancel(context.Background())
	var mu sync.Mutex
	live := len(batch)
	stops := make([]func() bool, 0, len(batch))
	for _, part := range batch {
		stops = append(stops, context.AfterFunc(part.job.ctx, func() {
			mu.Lock()
			live--
			if live == 0 {
				cancel()
			}
			mu.Unlock()
		}))
	}
	return ctx, func() {
		for _, stop := range stops {
			stop()
		}
		cancel()
	}
}

// prove proves a batch of partitions of one resident circuit (usually one partition) on
// device d, with one device reservation for all of them.
func (p *Pipeline) prove(worker string, d *device, batch []*partition) error {
	ctx, done := batchContext(batch)
	defer done()
	head := batch[0]
	head.worker = worker
	now := time.Now()
	var ws int64
	for _, part := range batch {
		part.t.Handoff = now.Sub(part.t.SynthEnd)
		ws += p.deviceWorkingSet(d, part.hint)
	}
	g, dk, err := p.acquireDevice(ctx, d, head, ws)
	device := time.Since(now) - head.t.KeyLoad
	if err != nil {
		return err
	}
	defer d.arena.release(g, true)
	if dk.rc != nil {
		err = p.proveResident(worker, dk, batch)
	} else {
		err = p.proveRows(dk, batch)
	}
	if err != nil {
		return err
	}
	nIn := head.state.shape.NumInputs
	for _, part := range batch {
		part.t.Device = device
		part.t.Prove, part.t.Worker, part.t.Batch = part.t.ProveEnd.Sub(part.t.ProveStart), worker, len(batch)
		part.public = append(part.public[:0], part.slot.z[1:nIn]...)
		part.vk = dk.vk()
		p.releaseHost(part, true)
		p.trace.span("prove", worker, part.t.ProveStart, part.t.ProveEnd, part)
		p.metrics.stage.WithLabelValues("prove").Observe(part.t.Prove.Seconds())
	}
	return nil
}

// proveRows proves a batch from host-evaluated rows (backends without the pre-compiled
// path) in one ProveBatch call.
func (p *Pipeline) proveRows(dk *deviceKey, batch []*partition) error {
	st := batch[0].state
	as := make([]groth16.Assignment, len(batch))
	nIn, rows := st.shape.NumInputs, st.shape.Rows()
	for _, part := range batch { // (streamed partitions go to resident devices only)
		if part.fill != nil {
			if err := part.fill.WaitAll(); err != nil {
				return err
			}
		}
	}
	for i, part := range batch {
		sl := part.slot
		as[i] = groth16.Assignment{Inputs: sl.z[:nIn], Aux: sl.z[nIn:], A: sl.a[:rows], B: sl.b[:rows], C: sl.c[:rows]}
	}
	var rs []groth16.Randomness
	if p.fixedRandomness != nil {
		for range batch {
			rs = append(rs, *p.fixedRandomness)
		}
	}
	start := time.Now()
	proofs, tms, err := dk.pk.ProveBatch(&st.shape.Density, as, rs)
	end := time.Now()
	if err != nil {
		return err
	}
	for i, part := range batch {
		part.t.ProveStart, part.t.ProveEnd = start, end
		part.t.Prover = tms[i]
		part.proof = proofs[i]
	}
	return nil
}

// finalizeStage verifies every proof against the verifying key before it is returned
// (an invalid proof never leaves the pipeline) and completes the partition.
type finalizeStage struct {
	p  *Pipeline
	wg sync.WaitGroup
}

func (s *finalizeStage) Start(workers int) {
	for w := 0; w < workers; w++ {
		s.wg.Add(1)
		go s.run(fmt.Sprintf("finalize%d", w))
	}
}

// Close waits for the workers; the finalize channel must have been closed.
func (s *finalizeStage) Close() { s.wg.Wait() }

func (s *finalizeStage) run(name string) {
	defer s.wg.Done()
	p := s.p
	for part := range p.finalq {
		t := time.Now()
		err := part.vk.Verify(&part.proof, part.public)
		part.t.Verify = time.Since(t)
		part.t.Done = time.Now()
		if err != nil {
			// Never returned. A recording that no longer matches the circuit code (same
			// sizes, other rows) would fail every proof: the next job probes again.
			p.distrust(part)
			p.fail(part, fmt.Errorf("proof does not verify: %w", err))
			continue
		}
		p.trace.span("verify", name, t, part.t.Done, part)
		p.metrics.stage.WithLabelValues("verify").Observe(part.t.Verify.Seconds())
		p.metrics.partitions.WithLabelValues(part.job.Kind, "ok").Inc()
		part.job.partitionDone(part.index, part.proof, part.t)
	}
}
