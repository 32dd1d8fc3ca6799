package gpu

import (
	"time"
	"unsafe"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/snarkpipe/snarkpipe/cuda"
	"github.com/snarkpipe/snarkpipe/prover/backend"
	"github.com/snarkpipe/snarkpipe/prover/r1cs"
)

// Streamed proofs (backend.StreamingShapeEvaluator): the device starts while the host is
// still filling aux in order. A 32 GiB Window PoSt partition's witness takes the host
// 1.7 s and its four MSMs over aux (L, A, B1, B2) 4.2 s of device time, so those MSMs run
// prefix by prefix on what is filled, and only A·z, the quotient and the H MSM wait for
// the whole assignment.

var _ backend.StreamingShapeEvaluator = (*Backend)(nil)

// DefaultStreamPlan cuts aux at 1/8 and 1/2. The first prefix is small so that the device
// starts early; each later one ends about where the host's fill is when the device has
// done the one before (the device's aux MSMs run about 2.4 times as long as the fill).
// Prefixes cost more per point than one MSM over all of aux (an MSM of 2^25 points costs
// about 10 % more per point than one of 2^27), so there are few of them.
var DefaultStreamPlan = []float64{0.125, 0.5}

func (c Config) streamPlan() []float64 {
	if c.StreamPlan == nil {
		return DefaultStreamPlan
	}
	return c.StreamPlan
}

// streamChunk is one prefix step of a streamed proof: aux [auxLo, auxHi) and where its
// variables sit in the a and b density lists (densityIndices).
type streamChunk struct {
	auxLo, auxHi int
	aLo, aHi     int
	bLo, bHi     int
}

// planStream cuts s's aux at the plan's fractions (a cut at 0, at the end or not after
// the one before is skipped) and locates each chunk's variables in the density lists:
// all inputs then the aux in A; the inputs in B then the aux in B.
func planStream(s *r1cs.Shape, plan []float64) []streamChunk {
	nBIn := s.BInput.Count()
	var chunks []streamChunk
	lo := 0
	for i := 0; i <= len(plan); i++ {
		hi := s.NumAux
		if i < len(plan) {
			hi = int(plan[i] * float64(s.NumAux))
		}
		if hi <= lo || hi > s.NumAux {
			continue
		}
		chunks = append(chunks, streamChunk{auxLo: lo, auxHi: hi,
			aLo: s.NumInputs + s.AAux.CountBelow(lo), aHi: s.NumInputs + s.AAux.CountBelow(hi),
			bLo: nBIn + s.BAux.CountBelow(lo), bHi: nBIn + s.BAux.CountBelow(hi)})
		lo = hi
	}
	return chunks
}

// inputChunk is the inputs' part of the a and b lists, which a streamed proof runs last.
func (rs *residentShape) inputChunk() streamChunk {
	nBIn := rs.nB
	if len(rs.chunks) > 0 {
		nBIn = rs.chunks[0].bLo
	}
	return streamChunk{aHi: rs.inputs, bHi: nBIn}
}

// ProveResidentStreamed is ProveResident for an assignment the host is still filling:
// ready says how far (see backend.StreamingShapeEvaluator). The proof holds its stream
// while it waits for the host.
func (b *Backend) ProveResidentStreamed(s backend.ResidentShape, inputs, aux []fr.Element, k backend.ResidentKey, ready backend.AuxProgress) (backend.ResidentResults, error) {
	var res backend.ResidentResults
	rs, err := b.resident(s)
	if err != nil {
		return res, err
	}
	if err := checkAssignment(rs, inputs, aux); err != nil {
		return res, err
	}
	kb, err := b.keyBases(rs, k)
	if err != nil {
		return res, err
	}
	start := time.Now()
	err = b.onPool(rs, &res.Timings, func(ctx cuda.Ctx, p *proofBufs, retry bool) error {
		if retry || len(rs.chunks) == 0 {
			// Out of device memory on the first run (or nothing to stream): the whole
			// proof again, as ProveResident, once the host is done.
			res.Timings.Chunks = 0
			if err := ready.WaitAll(); err != nil {
				return err
			}
			upload := func(c cuda.Ctx, p *proofBufs) error { return b.uploadZ(c, rs, inputs, aux, p) }
			return b.proveSteps(ctx, rs, p, kb, upload, &res, false)
		}
		return b.streamSteps(ctx, rs, p, kb, inputs, aux, ready, &res)
	})
	res.Timings.Total = time.Since(start)
	return res, wrap("ProveResidentStreamed", err)
}

// streamSteps runs a streamed proof on the held context, on its one stream: for each
// chunk as the host finishes it, its upload and its L, A, B1 and B2 MSMs (the A and B
// scalars gathered into b and c, which A·z rewrites only afterwards); then, with the
// whole assignment, the inputs' upload and their A and B MSMs, A·z, the quotient and the
// H MSM. The sums of the chunks' MSMs are those of the whole vectors.
func (b *Backend) streamSteps(ctx cuda.Ctx, rs *residentShape, p *proofBufs, kb residentBases, inputs, aux []fr.Element, ready backend.AuxProgress, res *backend.ResidentResults) error {
	tm := &res.Timings
	*tm = backend.ResidentTimings{Wait: tm.Wait, Buffers: tm.Buffers, OutOfMemoryRetries: tm.OutOfMemoryRetries}
	res.L, res.A, res.B1, res.B2 = g1Infinity(), g1Infinity(), g1Infinity(), g2Infinity()
	sA, err := b.scratch(ctx, p.b, rs.domain, rs.nA)
	if err != nil {
		return err
	}
	defer b.freeIfNot(ctx, sA, p.b)
	sB, err := b.scratch(ctx, p.c, rs.domain, rs.nB)
	if err != nil {
		return err
	}
	defer b.freeIfNot(ctx, sB, p.c)
	stats := newDroppedRounds(b.lib, ctx, 0)
	defer stats.report(tm)
	run := &chunkRun{b: b, ctx: ctx, rs: rs, kb: kb, z: p.z, sA: sA, sB: sB, res: res}
	for _, ch := range rs.chunks {
		t := time.Now()
		if err := ready.WaitAux(ch.auxHi); err != nil {
			return err
		}
		tm.FillWait += time.Since(t)
		if err := run.chunk(ch, aux); err != nil {
			return err
		}
		tm.Chunks++
	}
	t := time.Now()
	if err := ready.WaitAll(); err != nil {
		return err
	}
	tm.FillWait += time.Since(t)
	err = run.timed("upload", &tm.Upload, func() error {
		return b.lib.Upload(ctx, p.z, unsafe.Pointer(&inputs[0]), uint64(rs.inputs)*frBytes)
	})
	if err != nil {
		return err
	}
	if err := run.chunk(rs.inputChunk(), aux); err != nil {
		return err
	}
	var eval, quotient, h time.Duration
	err = b.runStages(ctx,
		proofStage{"eval", &eval, func(c cuda.Ctx) error { return b.evalRows(c, rs, p) }},
		proofStage{"quotient", &quotient, func(c cuda.Ctx) error { return b.quotient(c, rs, p) }},
		proofStage{"H", &h, func(c cuda.Ctx) (err error) { res.H, err = b.msmG1On(c, kb.h, p.a, rs.domain-1); return }})
	tm.Eval, tm.Quotient, tm.MSMH = eval, quotient, h
	return err
}

// chunkRun runs the chunks of one streamed proof and adds their MSMs into res.
type chunkRun struct {
	b      *Backend
	ctx    cuda.Ctx
	rs     *residentShape
	kb     residentBases
	z      cuda.DevPtr
	sA, sB cuda.DevPtr
	res    *backend.ResidentResults
}

// timed runs f as the stage name (through the test hook) and adds its time to d.
func (r *chunkRun) timed(name string, d *time.Duration, f func() error) error {
	t := time.Now()
	err := r.b.stageHook(name, false)
	if err == nil {
		err = f()
	}
	*d += time.Since(t)
	return err
}

// chunk uploads aux [auxLo, auxHi) into z and adds the chunk's L, A, B1 and B2 MSMs to
// the results; the A and B scalars of its list positions are gathered from z first.
func (r *chunkRun) chunk(ch streamChunk, aux []fr.Element) error {
	b, ctx, rs, kb, tm := r.b, r.ctx, r.rs, r.kb, &r.res.Timings
	auxZ := r.z + cuda.DevPtr(rs.inputs*frBytes)
	off := func(p cuda.DevPtr, i, size int) cuda.DevPtr { return p + cuda.DevPtr(i*size) }
	if n := ch.auxHi - ch.auxLo; n > 0 {
		err := r.timed("upload", &tm.Upload, func() error {
			return b.lib.Upload(ctx, off(auxZ, ch.auxLo, frBytes), unsafe.Pointer(&aux[ch.auxLo]), uint64(n)*frBytes)
		})
		if err != nil {
			return err
		}
		err = r.timed("L", &tm.MSML, func() error {
			l, err := b.msmG1On(ctx, off(kb.l, ch.auxLo, g1AffineBytes), off(auxZ, ch.auxLo, frBytes), n)
			r.res.L.AddAssign(&l)
			return err
		})
		if err != nil {
			return err
		}
	}
	if n := ch.aHi - ch.aLo; n > 0 {
		err := r.timed("A", &tm.MSMA, func() error {
			if err := b.lib.Gather(ctx, r.z, off(rs.idxA, ch.aLo, 4), uint64(n), off(r.sA, ch.aLo, frBytes)); err != nil {
				return err
			}
			a, err := b.msmG1On(ctx, off(kb.a, ch.aLo, g1AffineBytes), off(r.sA, ch.aLo, frBytes), n)
			r.res.A.AddAssign(&a)
			return err
		})
		if err != nil {
			return err
		}
	}
	n := ch.bHi - ch.bLo
	if n == 0 {
		return nil
	}
	err := r.timed("B1", &tm.MSMB1, func() error {
		if err := b.lib.Gather(ctx, r.z, off(rs.idxB, ch.bLo, 4), uint64(n), off(r.sB, ch.bLo, frBytes)); err != nil {
			return err
		}
		b1, err := b.msmG1On(ctx, off(kb.bg1, ch.bLo, g1AffineBytes), off(r.sB, ch.bLo, frBytes), n)
		r.res.B1.AddAssign(&b1)
		return err
	})
	if err != nil {
		return err
	}
	return r.timed("B2", &tm.MSMB2, func() error {
		b2, err := b.msmG2On(ctx, off(kb.bg2, ch.bLo, g2AffineBytes), off(r.sB, ch.bLo, frBytes), n)
		r.res.B2.AddAssign(&b2)
		return err
	})
}
