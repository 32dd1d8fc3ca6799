package pipeline

import (
	"runtime"
	"sync"
	"time"
	"unsafe"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/snarkpipe/snarkpipe/prover"
	"github.com/snarkpipe/snarkpipe/prover/backend"
	"github.com/snarkpipe/snarkpipe/prover/groth16"
)

// The pre-compiled path (backend.ShapeEvaluator): the device holds the recorded shape
// beside the proving key and computes A·z, B·z, C·z itself, so the synthesis worker only
// fills z (and bit-packs it for a backend.PackedShapeEvaluator) and the slot has no row
// vectors. This file holds the host side of that path: pinning, packing, proving.

// pinSlot page-locks a newly allocated slot through the pipeline's pinner (a pooled slot
// keeps its pin, so this runs once per slot; the freer unpins it when the slot is freed).
func (p *Pipeline) pinSlot(part *partition) {
	t := time.Now()
	if p.pin(part.slot) {
		part.t.Pin = time.Since(t)
		p.trace.span("pin slot", part.worker, t, t.Add(part.t.Pin), part)
	}
}

// pin page-locks sl unless it has been tried before, and reports whether it tried. Only
// what is uploaded is pinned: z and the bitmaps, not host-evaluated rows. A failed pin
// is not an error: the upload still works from pageable memory, only slower, and the
// slot is not tried again.
func (p *Pipeline) pin(sl *slot) bool {
	if p.pinner == nil || sl.unpin != nil {
		return false
	}
	v := sl.all
	if sl.shape.m > 0 {
		v = sl.z
	}
	unpin, err := p.pinner.PinHost(v)
	if err != nil || unpin == nil {
		p.metrics.pins.WithLabelValues("failed").Inc()
		sl.unpin = func() error { return nil }
		return true
	}
	p.metrics.pins.WithLabelValues("ok").Inc()
	sl.unpin = unpin
	return true
}

// preloadSlots fills the host pool with the slots of h's shape that its first proof
// would otherwise allocate and page-lock while it runs (Config.PreloadSlots): one per
// synthesis worker, hand-off place and device worker, as far as they fit the host budget
// without evicting anything. At 32 GiB PoRep a slot takes 2–8 s to page-lock, and the
// first proof's uploads and device allocations waited for those pins (11.5 s for its
// first upload, docs/BENCHMARKS.md). It returns the slots it added.
func (p *Pipeline) preloadSlots(h Hint) int {
	shape := p.hostSlot(h)
	n := p.cfg.SynthesisWorkers + p.cfg.HandoffDepth + p.cfg.WorkersPerDevice*len(p.devices)
	k := p.host.reserveIdle(shape, n)
	for i := range k {
		sl, err := newSlot(shape)
		if err != nil {
			p.host.unreserve(int64(k-i) * shape.bytes())
			p.circuits.log.Warn("pipeline: preloading slots stopped", "made", i, "of", k, "err", err)
			return i
		}
		p.host.stats.slotAllocated(shape.bytes())
		p.pin(sl)
		p.host.addIdle(sl)
	}
	return k
}

// pinKeys page-locks the point vectors of params through the pipeline's pinner
// (Config.PinKeys) and returns their unpins. A vector that cannot be pinned is left
// pageable (its loads are slower, nothing fails); pinning stops at the first failure.
func (p *Pipeline) pinKeys(id prover.CircuitID, params *groth16.Params) []func() error {
	if p.pinner == nil {
		return nil
	}
	var unpins []func() error
	t := time.Now()
	for _, v := range [][]fr.Element{frView(params.H), frView(params.L), frView(params.A), frView(params.BG1), frView(params.BG2)} {
		if len(v) == 0 {
			continue
		}
		unpin, err := p.pinner.PinHost(v)
		if err != nil || unpin == nil {
			p.metrics.keyPins.WithLabelValues("failed").Inc()
			p.circuits.log.Warn("pipeline: page-locking a proving key failed; it loads from pageable memory", "circuit", id, "err", err)
			break
		}
		p.metrics.keyPins.WithLabelValues("ok").Inc()
		unpins = append(unpins, unpin)
	}
	p.circuits.log.Info("pipeline: proving key page-locked", "circuit", id, "vectors", len(unpins), "seconds", time.Since(t).Seconds())
	return unpins
}

// frView is v's memory seen as field elements (points are whole multiples of 32 bytes:
// 96 for G1, 192 for G2), for the pinner, which only takes the range.
func frView[T bls.G1Affine | bls.G2Affine](v []T) []fr.Element {
	if len(v) == 0 {
		return nil
	}
	var zero T
	return unsafe.Slice((*fr.Element)(unsafe.Pointer(&v[0])), len(v)*int(unsafe.Sizeof(zero))/int(unsafe.Sizeof(fr.Element{})))
}

// prepareUpload turns the filled z into what the device workers take: the row
// evaluations (host-evaluated path), the packed witness (packed path), or z as it is.
func (p *Pipeline) prepareUpload(part *partition) error {
	sl, shape := part.slot, part.state.shape
	part.packed = nil
	switch {
	case p.mode.hostEval:
		rows := shape.Rows()
		t := time.Now()
		if err := shape.Eval(sl.z, sl.a[:rows], sl.b[:rows], sl.c[:rows], p.cfg.EvalTasks); err != nil {
			return err
		}
		part.t.Eval = time.Since(t)
	case p.mode.pack:
		t := time.Now()
		packed := packInPlace(sl.z[shape.NumInputs:], sl.field, sl.ones, p.cfg.EvalTasks)
		part.packed = &packed
		part.t.Pack = time.Since(t)
	}
	return nil
}

// packMinWordsPerTask keeps packing tasks large enough to be worth a goroutine.
const packMinWordsPerTask = 1 << 12

// packInPlace bit-packs aux as backend.PackAux does (same format), without allocating:
// the bitmaps go to field and ones (bitmapWords(len(aux)) words each), and the
// non-boolean values are compacted to the front of aux itself, which the result's Values
// then is. aux no longer holds the plain witness afterwards. Chunks of whole bitmap words
// are packed in parallel (tasks ≤ 0: one task per CPU), then their values moved into place.
func packInPlace(aux []fr.Element, field, ones []uint64, tasks int) backend.PackedAux {
	words := bitmapWords(len(aux))
	field, ones = field[:words], ones[:words]
	tasks = max(1, min(taskCount(tasks), words/packMinWordsPerTask))
	per := (words + tasks - 1) / tasks
	counts := make([]int, tasks)
	var wg sync.WaitGroup
	for i := range tasks {
		lo, hi := min(i*per*64, len(aux)), min((i+1)*per*64, len(aux))
		wg.Add(1)
		go func() {
			defer wg.Done()
			counts[i] = packChunk(aux[lo:hi], field[lo/64:(hi+63)/64], ones[lo/64:(hi+63)/64])
		}()
	}
	wg.Wait()
	n := 0
	for i, c := range counts { // chunk i's values move down to follow chunk i−1's
		lo := min(i*per*64, len(aux))
		n += copy(aux[n:], aux[lo:lo+c])
	}
	return backend.PackedAux{N: len(aux), Field: field, Ones: ones, Values: aux[:n:n]}
}

// packChunk packs aux (starting on a bitmap word) into its words of field and ones and
// compacts its non-boolean values to its front, returning how many there are.
func packChunk(aux []fr.Element, field, ones []uint64) int {
	clear(field)
	clear(ones)
	one := fr.One()
	k := 0
	for j := range aux {
		switch {
		case aux[j].IsZero():
		case aux[j].Equal(&one):
			ones[j/64] |= 1 << (j % 64)
		default:
			field[j/64] |= 1 << (j % 64)
			aux[k] = aux[j]
			k++
		}
	}
	return k
}

// proveResident proves each partition of the batch on the key's resident circuit, one
// after the other (the backend proves one at a time on its stream).
func (p *Pipeline) proveResident(worker string, dk *deviceKey, batch []*partition) error {
	nIn := batch[0].state.shape.NumInputs
	for _, part := range batch {
		sl := part.slot
		var proof groth16.Proof
		var tm groth16.DeviceTimings
		var err error
		part.t.ProveStart = time.Now()
		switch {
		case part.fill != nil:
			proof, tm, err = dk.rc.ProveStreamed(sl.z[:nIn], sl.z[nIn:], part.fill, p.fixedRandomness)
			if err == nil {
				part.t.Witness = part.fill.took
			}
		case part.packed != nil:
			proof, tm, err = dk.rc.ProvePacked(sl.z[:nIn], part.packed, p.fixedRandomness)
		default:
			proof, tm, err = dk.rc.Prove(sl.z[:nIn], sl.z[nIn:], p.fixedRandomness)
		}
		part.t.ProveEnd = time.Now()
		if err != nil {
			return err
		}
		part.proof = proof
		part.t.Resident = tm
		if tm.MSMRoundsDropped > 0 && p.circuits.log != nil {
			p.circuits.log.Warn("pipeline: device memory short: MSMs ran without their batch-affine rounds (slower proofs)",
				"worker", worker, "msms", tm.MSMRoundsDropped)
		}
		if tm.OutOfMemoryRetries > 0 && p.circuits.log != nil {
			p.circuits.log.Warn("pipeline: device memory short: a proof ran out of device memory and ran again, whole or its side-stream stages (slower proof)",
				"worker", worker)
		}
		part.t.Prover = groth16.Timings{Quotient: tm.Quotient, MSMH: tm.MSMH, MSML: tm.MSML, MSMA: tm.MSMA,
			MSMB1: tm.MSMB1, MSMB2: tm.MSMB2, Total: tm.Total + tm.Assemble}
		p.traceResident(worker, part)
	}
	return nil
}

// traceResident lays the device's stages out on the worker's track inside the proof's
// span: the stages of one stream follow each other from the start of the proof, and
// the host-side blinding comes last (a streamed proof's waits for the fill and B2
// chunks, which alternate, are drawn summed, first). A side stream's stages (SideStream) go on their own
// track, "<worker> side": L from the end of A·z, then B1, B2 and A once both L and the
// quotient are done.
func (p *Pipeline) traceResident(worker string, part *partition) {
	tm := &part.t.Resident
	type stage struct {
		name string
		d    time.Duration
	}
	track := func(name string, at time.Time, stages ...stage) time.Time {
		for _, st := range stages {
			if st.d > 0 {
				p.trace.span(st.name, name, at, at.Add(st.d), part)
				at = at.Add(st.d)
			}
		}
		return at
	}
	start := part.t.ProveStart
	if tm.Chunks > 0 { // streamed: B2 in chunks as the fill goes (waits summed first), then the rest in order
		at := track(worker, start, stage{"wait fill", tm.FillWait}, stage{"msm B2 (G2, streamed)", tm.MSMB2}, stage{"upload", tm.Upload},
			stage{"A·z B·z C·z", tm.Eval}, stage{"quotient", tm.Quotient}, stage{"msm H", tm.MSMH}, stage{"msm L", tm.MSML},
			stage{"msm A", tm.MSMA}, stage{"msm B1", tm.MSMB1})
		track(worker, at, stage{"assemble", tm.Assemble})
		return
	}
	quotientEnd := track(worker, start, stage{"upload", tm.Upload}, stage{"A·z B·z C·z", tm.Eval}, stage{"quotient", tm.Quotient})
	l, a, b1, b2 := stage{"msm L", tm.MSML}, stage{"msm A", tm.MSMA}, stage{"msm B1", tm.MSMB1}, stage{"msm B2 (G2)", tm.MSMB2}
	h := stage{"msm H", tm.MSMH}
	if !tm.SideStream {
		track(worker, track(worker, quotientEnd, h, l, a, b1, b2), stage{"assemble", tm.Assemble})
		return
	}
	side := worker + " side"
	lEnd := track(side, start.Add(tm.Upload+tm.Eval), l)
	track(side, later(lEnd, quotientEnd), b1, b2, a)
	track(worker, track(worker, quotientEnd, h), stage{"assemble", tm.Assemble})
}

// later is the later of two instants.
func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// taskCount resolves a configured parallelism (≤ 0: one task per CPU).
func taskCount(tasks int) int {
	if tasks <= 0 {
		return runtime.NumCPU()
	}
	return tasks
}
