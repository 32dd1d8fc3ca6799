package pipeline

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/snarkpipe/snarkpipe/prover/groth16"
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
		if err := p.synthesize(name, part); err != nil {
			p.fail(part, err)
			continue
		}
		// Once pushed, the partition belongs to the device workers: not touched here again.
		if err := p.handoff.push(part.job.ctx, part); err != nil {
			p.fail(part, err)
		}
	}
}

func (p *Pipeline) synthesize(worker string, part *partition) error {
	ctx := part.job.ctx
	start := time.Now()
	part.t.SynthStart = start
	part.worker = worker
	h, err := p.circuits.prepare(ctx, part.circuit)
	part.t.Prepare = time.Since(start)
	if err != nil {
		return err
	}
	part.hint = h
	admit := time.Now()
	if err := p.acquireHost(ctx, part); err != nil {
		return err
	}
	if part.state.key.String() != h.Key {
		// The resident recording comes from other circuit code than the one just probed
		// (it changed since the circuit was loaded): retire it and load the new one.
		p.host.retire(part.host.entry)
		p.releaseHost(part, true)
		part.host = nil
		if err := p.acquireHost(ctx, part); err != nil {
			return err
		}
		if part.state.key.String() != h.Key {
			return fmt.Errorf("%w: %s: resident recording does not match", ErrCircuitChanged, part.job.Circuit)
		}
	}
	if part.t.Admission > time.Millisecond { // waits worth seeing on the timeline
		p.trace.span("wait host memory", worker, admit, admit.Add(part.t.Admission), part)
	}
	sl, err := p.host.allocSlot(part.host, p.hostSlot(h))
	if err != nil {
		return err
	}
	part.slot = sl
	p.pinSlot(part)
	st := part.state
	t := time.Now()
	if err := fillAssignment(part.circuit, st.shape, sl.z); err != nil {
		if errors.Is(err, ErrCircuitChanged) {
			p.distrust(part)
		}
		return err
	}
	part.t.Witness = time.Since(t)
	if err := p.prepareUpload(part); err != nil {
		return err
	}
	part.t.SynthEnd = time.Now()
	p.trace.span("synthesize", worker, part.t.SynthStart, part.t.SynthEnd, part)
	p.metrics.stage.WithLabelValues("synthesize").Observe(part.t.SynthEnd.Sub(start).Seconds())
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

// releaseHost returns a partition's host grant (slot back to the pool).
func (p *Pipeline) releaseHost(part *partition, keepSlot bool) {
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
		ws += part.hint.deviceWorkingSet()
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
