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
// still filling aux in order. On a 32 GiB Window PoSt partition the host's fill takes
// about 1.3 s on the H200 machine's 16 cores and the device's work 5.6 s, of which the B2
// MSM (G2, over the aux in B) 2.0 s. A streamed proof runs B2 prefix by prefix on what is
// filled, so the device works from the first prefix on, and everything else (A·z, the
// quotient, the H, L, A and B1 MSMs) once the fill is done, as one MSM each. Only B2 is
// cut because every extra MSM pays a fixed cost (its bucket reduction and set-up), and
// B2, at three times G1's cost per point, keeps the device busy through the whole fill
// with the fewest cuts. (Cutting L, A, B1 and B2 at 1/8 and 1/2 cost 0.23 s more device
// time than whole MSMs, measured on the H200; see docs/BENCHMARKS.md.)

var _ backend.StreamingShapeEvaluator = (*Backend)(nil)

// DefaultStreamPlan cuts aux for the B2 MSM at 0.03, 0.12, 0.3 and 0.58. Measured on the
// H200 with a 32 GiB Window PoSt partition: B2 takes 1.98 s as one MSM, each extra cut
// costs about 48 ms, and the fill takes 1.24–1.32 s. A model of that (wait for each
// prefix, then its share of B2 plus the fixed cost) puts the end of B2 at 2.26 s after
// the proof starts with these cuts, against 2.35 s with the five cuts first used (1/16,
// 0.16, 0.3, 0.5, 0.8, measured 2.35 s) and 3.31 s without streaming; with a fill 15 %
// slower it stays within 0.01 s of the best four cuts for that fill.
var DefaultStreamPlan = []float64{0.03, 0.12, 0.3, 0.58}

// minStreamAux is the fewest aux variables a shape needs for its proofs to be cut when
// streamed: every cut costs a fixed time (an MSM's set-up and reduction), which a small
// proof (Winning PoSt: 0.09 s of device time in all) cannot win back. Smaller shapes
// prove whole once their fill has ended.
const minStreamAux = 1 << 22

// streamChunks is the chunk plan of shape s on this backend (none below streamMinAux).
func (b *Backend) streamChunks(s *r1cs.Shape) []streamChunk {
	if s.NumAux < b.streamMinAux {
		return nil
	}
	return planStream(s, b.plan)
}

func (c Config) streamPlan() []float64 {
	if c.StreamPlan == nil {
		return DefaultStreamPlan
	}
	return c.StreamPlan
}

// streamChunk is one prefix step of a streamed proof: aux [auxLo, auxHi) and where its
// variables sit in the b density list (densityIndices).
type streamChunk struct {
	auxLo, auxHi int
	bLo, bHi     int
}

// planStream cuts s's aux at the plan's fractions (a cut at 0, at the end or not after
// the one before is skipped) and locates each chunk's variables in the b density list:
// the inputs in B, then the aux in B.
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
			bLo: nBIn + s.BAux.CountBelow(lo), bHi: nBIn + s.BAux.CountBelow(hi)})
		lo = hi
	}
	return chunks
}

// inputChunk is the inputs' part of the b list, whose B2 MSM a streamed proof runs last.
func (rs *residentShape) inputChunk() streamChunk {
	nBIn := rs.nB
	if len(rs.chunks) > 0 {
		nBIn = rs.chunks[0].bLo
	}
	return streamChunk{bHi: nBIn}
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
			// A shape too small to cut, or out of device memory on the first run: the
			// whole proof, as ProveResident (the retry on one stream), once the host is done.
			res.Timings.Chunks = 0
			if err := ready.WaitAll(); err != nil {
				return err
			}
			upload := func(c cuda.Ctx, p *proofBufs) error { return b.uploadZ(c, rs, inputs, aux, p) }
			return b.proveSteps(ctx, rs, p, kb, upload, &res, !retry && !rs.oneStream.Load())
		}
		return b.streamSteps(ctx, rs, p, kb, inputs, aux, ready, &res)
	})
	res.Timings.Total = time.Since(start)
	return res, wrap("ProveResidentStreamed", err)
}

// streamSteps runs a streamed proof on the held context, on its one stream: for each
// chunk as the host finishes it, its upload and its B2 MSM (its B scalars gathered into
// c, which A·z rewrites only afterwards); then, with the whole assignment, the inputs'
// upload and B2 MSM, A·z, the quotient and the H, L, A and B1 MSMs, as a proof on one
// stream runs them. The chunks' B2 sums add up to the whole vector's.
func (b *Backend) streamSteps(ctx cuda.Ctx, rs *residentShape, p *proofBufs, kb residentBases, inputs, aux []fr.Element, ready backend.AuxProgress, res *backend.ResidentResults) error {
	tm := &res.Timings
	*tm = backend.ResidentTimings{Wait: tm.Wait, Buffers: tm.Buffers, OutOfMemoryRetries: tm.OutOfMemoryRetries}
	res.B2 = g2Infinity()
	sA, sB, release, err := b.densityScratch(ctx, rs, p)
	if err != nil {
		return err
	}
	defer release()
	stats := newDroppedRounds(b.lib, ctx, 0)
	defer stats.report(tm)
	auxZ := p.z + cuda.DevPtr(rs.inputs*frBytes)
	run := &chunkRun{b: b, ctx: ctx, rs: rs, kb: kb, z: p.z, sB: sB, res: res}
	for _, ch := range rs.chunks {
		t := time.Now()
		if err := ready.WaitAux(ch.auxHi); err != nil {
			return err
		}
		tm.FillWait += time.Since(t)
		n := ch.auxHi - ch.auxLo
		err := run.timed("upload", &tm.Upload, func() error {
			return b.lib.Upload(ctx, auxZ+cuda.DevPtr(ch.auxLo*frBytes), unsafe.Pointer(&aux[ch.auxLo]), uint64(n)*frBytes)
		})
		if err != nil {
			return err
		}
		if err := run.b2(ch); err != nil {
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
	if err := run.b2(rs.inputChunk()); err != nil {
		return err
	}
	var eval, quotient, h, l, a, b1 time.Duration
	err = b.runStages(ctx,
		proofStage{"eval", &eval, func(c cuda.Ctx) error { return b.evalRows(c, rs, p) }},
		proofStage{"quotient", &quotient, func(c cuda.Ctx) error { return b.quotient(c, rs, p) }},
		proofStage{"H", &h, func(c cuda.Ctx) (err error) { res.H, err = b.msmG1On(c, kb.h, p.a, rs.domain-1); return }},
		proofStage{"L", &l, func(c cuda.Ctx) (err error) { res.L, err = b.msmG1On(c, kb.l, auxZ, rs.aux); return }},
		proofStage{"A", &a, func(c cuda.Ctx) (err error) { res.A, err = b.gatherMSMG1(c, p.z, rs.idxA, rs.nA, sA, kb.a); return }},
		proofStage{"B1", &b1, func(c cuda.Ctx) (err error) { res.B1, err = b.gatherMSMG1(c, p.z, rs.idxB, rs.nB, sB, kb.bg1); return }})
	tm.Eval, tm.Quotient, tm.MSMH, tm.MSML, tm.MSMA, tm.MSMB1 = eval, quotient, h, l, a, b1
	return err
}

// chunkRun runs the B2 MSMs of one streamed proof's chunks and adds them into res.B2.
type chunkRun struct {
	b   *Backend
	ctx cuda.Ctx
	rs  *residentShape
	kb  residentBases
	z   cuda.DevPtr
	sB  cuda.DevPtr
	res *backend.ResidentResults
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

// b2 gathers the B scalars of the chunk's list positions from z and adds their B2 MSM.
func (r *chunkRun) b2(ch streamChunk) error {
	n := ch.bHi - ch.bLo
	if n == 0 {
		return nil
	}
	b, ctx := r.b, r.ctx
	scalars := r.sB + cuda.DevPtr(ch.bLo*frBytes)
	return r.timed("B2", &r.res.Timings.MSMB2, func() error {
		if err := b.lib.Gather(ctx, r.z, r.rs.idxB+cuda.DevPtr(ch.bLo*4), uint64(n), scalars); err != nil {
			return err
		}
		b2, err := b.msmG2On(ctx, r.kb.bg2.offset(ch.bLo, g2AffineBytes), scalars, n)
		r.res.B2.AddAssign(&b2)
		return err
	})
}
