package gpu

import (
	"errors"
	"fmt"
	"time"
	"unsafe"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/snarkpipe/snarkpipe/cuda"
	"github.com/snarkpipe/snarkpipe/prover/backend"
)

// proofBufs are one proof's device vectors: z = inputs ‖ aux and the three row
// evaluations over the domain (a ends up holding h). They come from the shape's pool
// (pool.go) and hold the previous proof's values until each stage rewrites them.
type proofBufs struct {
	z, a, b, c cuda.DevPtr
}

// free releases the vectors allocated so far.
func (p *proofBufs) free(b *Backend, ctx cuda.Ctx) error {
	var errs []error
	for _, d := range []cuda.DevPtr{p.z, p.a, p.b, p.c} {
		if d != 0 {
			errs = append(errs, b.free(ctx, d))
		}
	}
	*p = proofBufs{}
	return errors.Join(errs...)
}

func checkAssignment(rs *residentShape, inputs, aux []fr.Element) error {
	if len(inputs) != rs.inputs || len(aux) != rs.aux {
		return fmt.Errorf("gpu backend: assignment has %d inputs and %d aux, shape has %d and %d", len(inputs), len(aux), rs.inputs, rs.aux)
	}
	return nil
}

// uploadZ copies inputs ‖ aux into p.z: the only per-proof upload.
func (b *Backend) uploadZ(ctx cuda.Ctx, rs *residentShape, inputs, aux []fr.Element, p *proofBufs) error {
	if err := b.lib.Upload(ctx, p.z, unsafe.Pointer(&inputs[0]), uint64(rs.inputs)*frBytes); err != nil {
		return err
	}
	if rs.aux == 0 {
		return nil
	}
	return b.lib.Upload(ctx, p.z+cuda.DevPtr(rs.inputs*frBytes), unsafe.Pointer(&aux[0]), uint64(rs.aux)*frBytes)
}

// evalRows computes a, b, c = A·z, B·z, C·z over the whole domain (zero past the rows).
func (b *Backend) evalRows(ctx cuda.Ctx, rs *residentShape, p *proofBufs) error {
	for i, out := range []cuda.DevPtr{p.a, p.b, p.c} {
		if err := rs.evalSide(ctx, i, p.z, out); err != nil {
			return err
		}
	}
	return nil
}

// quotient turns a, b, c into h (in a), as QuotientH does with host vectors.
func (b *Backend) quotient(ctx cuda.Ctx, rs *residentShape, p *proofBufs) error {
	k := b.consts(rs.domain)
	return b.lib.Quotient(ctx, p.a, p.b, p.c, lg2(rs.domain), unsafe.Pointer(&k[0]))
}

// download copies n field elements from the device.
func (b *Backend) download(ctx cuda.Ctx, src cuda.DevPtr, n int) ([]fr.Element, error) {
	out := make([]fr.Element, n)
	if n == 0 {
		return out, nil
	}
	return out, b.lib.Download(ctx, unsafe.Pointer(&out[0]), src, uint64(n)*frBytes)
}

// withProof checks the assignment against the shape and runs f as onPool does.
func (b *Backend) withProof(s backend.ResidentShape, inputs, aux []fr.Element, f func(ctx cuda.Ctx, rs *residentShape, p *proofBufs) error) error {
	rs, err := b.resident(s)
	if err != nil {
		return err
	}
	if err := checkAssignment(rs, inputs, aux); err != nil {
		return err
	}
	return b.onPool(rs, nil, func(ctx cuda.Ctx, p *proofBufs, _ bool) error { return f(ctx, rs, p) })
}

// onPool runs f on a proof stream (streams.go) with a set of the shape's pooled proof
// buffers, and once more after a trim if the device ran out of memory (f rewrites
// everything it reads; retry tells it which run it is). tm, when set, receives the wait
// for the stream, the time spent checking out buffers and whether f ran again.
func (b *Backend) onPool(rs *residentShape, tm *backend.ResidentTimings, f func(ctx cuda.Ctx, p *proofBufs, retry bool) error) error {
	called := time.Now()
	return b.onStream(func(ctx cuda.Ctx) error {
		if tm != nil {
			tm.Wait = time.Since(called)
		}
		if err := rs.open(); err != nil {
			return err
		}
		if b.hooks.proofHeld != nil {
			b.hooks.proofHeld()
		}
		runs := 0
		return b.retryOnOOM(ctx, rs, func() error {
			runs++
			if tm != nil {
				tm.OutOfMemoryRetries = runs - 1
			}
			t := time.Now()
			p, err := b.checkout(ctx, rs)
			if tm != nil {
				tm.Buffers += time.Since(t)
			}
			if err != nil {
				return err
			}
			defer b.checkin(rs, p)
			return f(ctx, p, runs > 1)
		})
	})
}

// EvalResident returns A·z, B·z, C·z over the shape's domain (zero-padded past the rows),
// computed on the device: the sparse product of the pre-compiled path, for tests and
// benchmarks.
func (b *Backend) EvalResident(s backend.ResidentShape, inputs, aux []fr.Element) (a, bv, c []fr.Element, err error) {
	err = b.withProof(s, inputs, aux, func(ctx cuda.Ctx, rs *residentShape, p *proofBufs) error {
		if err := b.uploadZ(ctx, rs, inputs, aux, p); err != nil {
			return err
		}
		if err := b.evalRows(ctx, rs, p); err != nil {
			return err
		}
		var err error
		if a, err = b.download(ctx, p.a, rs.domain); err != nil {
			return err
		}
		if bv, err = b.download(ctx, p.b, rs.domain); err != nil {
			return err
		}
		c, err = b.download(ctx, p.c, rs.domain)
		return err
	})
	return a, bv, c, wrap("EvalResident", err)
}

// QuotientResident returns the m−1 coefficients of h for the assignment, computed from
// z entirely on the device (sparse products, then the quotient pipeline).
func (b *Backend) QuotientResident(s backend.ResidentShape, inputs, aux []fr.Element) (h []fr.Element, err error) {
	err = b.withProof(s, inputs, aux, func(ctx cuda.Ctx, rs *residentShape, p *proofBufs) error {
		if err := b.uploadZ(ctx, rs, inputs, aux, p); err != nil {
			return err
		}
		if err := b.evalRows(ctx, rs, p); err != nil {
			return err
		}
		if err := b.quotient(ctx, rs, p); err != nil {
			return err
		}
		var err error
		h, err = b.download(ctx, p.a, rs.domain-1)
		return err
	})
	return h, wrap("QuotientResident", err)
}

// residentBases resolves the key's vectors (on the device, or streamed from host memory)
// and checks their lengths against the shape: the scalar vectors are built on the device
// and never seen by the host.
type residentBases struct {
	h, l, a, bg1, bg2 baseRef
}

func (b *Backend) keyBases(rs *residentShape, k backend.ResidentKey) (residentBases, error) {
	var out residentBases
	g1s := []struct {
		bases backend.G1Bases
		n     int
		dst   *baseRef
		name  string
	}{
		{k.H, rs.domain - 1, &out.h, "h"}, {k.L, rs.aux, &out.l, "l"},
		{k.A, rs.nA, &out.a, "a"}, {k.BG1, rs.nB, &out.bg1, "b_g1"},
	}
	for _, g := range g1s {
		d, err := b.g1(g.bases)
		if err != nil {
			return out, err
		}
		if d.Len() != g.n {
			return out, fmt.Errorf("gpu backend: %s has %d bases, the shape needs %d", g.name, d.Len(), g.n)
		}
		if *g.dst, err = d.ref(0, g.n); err != nil {
			return out, err
		}
	}
	d, err := b.g2(k.BG2)
	if err != nil {
		return out, err
	}
	if d.Len() != rs.nB {
		return out, fmt.Errorf("gpu backend: b_g2 has %d bases, the shape needs %d", d.Len(), rs.nB)
	}
	out.bg2, err = d.ref(0, rs.nB)
	return out, err
}

// ProveResident runs one proof's backend work on the device (see backend.ShapeEvaluator
// and proveSteps).
func (b *Backend) ProveResident(s backend.ResidentShape, inputs, aux []fr.Element, k backend.ResidentKey) (backend.ResidentResults, error) {
	rs, err := b.resident(s)
	if err != nil {
		return backend.ResidentResults{}, err
	}
	if err := checkAssignment(rs, inputs, aux); err != nil {
		return backend.ResidentResults{}, err
	}
	return b.proveResident(rs, k, func(ctx cuda.Ctx, p *proofBufs) error { return b.uploadZ(ctx, rs, inputs, aux, p) })
}

// ProveResidentPacked is ProveResident with the aux assignment bit-packed: the upload is
// the inputs, two bitmaps of one bit per aux variable and the non-boolean values, and z
// is expanded on the device (see backend.PackedShapeEvaluator).
func (b *Backend) ProveResidentPacked(s backend.ResidentShape, inputs []fr.Element, aux *backend.PackedAux, k backend.ResidentKey) (backend.ResidentResults, error) {
	rs, err := b.resident(s)
	if err != nil {
		return backend.ResidentResults{}, err
	}
	if err := aux.Validate(); err != nil {
		return backend.ResidentResults{}, err
	}
	if len(inputs) != rs.inputs || aux.N != rs.aux {
		return backend.ResidentResults{}, fmt.Errorf("gpu backend: assignment has %d inputs and %d aux, shape has %d and %d", len(inputs), aux.N, rs.inputs, rs.aux)
	}
	return b.proveResident(rs, k, func(ctx cuda.Ctx, p *proofBufs) error { return b.uploadPacked(ctx, rs, inputs, aux, p) })
}

// proveResident is the body of ProveResident after z's upload, which upload performs.
func (b *Backend) proveResident(rs *residentShape, k backend.ResidentKey, upload func(ctx cuda.Ctx, p *proofBufs) error) (backend.ResidentResults, error) {
	var res backend.ResidentResults
	kb, err := b.keyBases(rs, k)
	if err != nil {
		return res, err
	}
	start := time.Now()
	err = b.onPool(rs, &res.Timings, func(ctx cuda.Ctx, p *proofBufs, retry bool) error {
		// The retry after running out of device memory keeps to one stream: the side
		// stream's MSM scratch beside the H MSM's may be what the device lacked. When the
		// failed attempt had the side stream working, the shape's later proofs keep to one
		// stream too: on a device this full, every proof would fail its first attempt (a
		// 32 GiB Window PoSt partition beside its key on an H200 took 12.6 s of device time
		// for 6.6 s of stages, each proof by every sign a failed attempt and a retry).
		// (Only the stages up to the quotient get here: an H MSM or a side-stream stage
		// that runs out of memory runs again on its own, finishSide.)
		if retry && res.Timings.SideStream {
			rs.keepOneStream()
		}
		return b.proveSteps(ctx, rs, p, kb, upload, &res, !retry && !rs.oneStream.Load())
	})
	res.Timings.Total = time.Since(start)
	return res, wrap("ProveResident", err)
}

// proveSteps runs the stages of one proof on the held context: upload z; A·z, B·z, C·z;
// h; the H and L MSMs on h and the aux part of z in place; the A and B MSMs on scalars
// gathered from z by the density index lists. Each MSM separates zero and one scalars
// itself (msm.cuh). With Config.SerialMSMs, or without sideOK, the stages run in order on
// the one stream; by default the proof stream's side context runs the L MSM beside the
// quotient (it reads only z), then the A, B1 and B2 MSMs beside the H MSM.
func (b *Backend) proveSteps(ctx cuda.Ctx, rs *residentShape, p *proofBufs, kb residentBases, upload func(ctx cuda.Ctx, p *proofBufs) error, res *backend.ResidentResults, sideOK bool) (err error) {
	tm := &res.Timings
	tm.SideStream = false
	quotient := proofStage{"quotient", &tm.Quotient, func(c cuda.Ctx) error { return b.quotient(c, rs, p) }}
	if err := b.runStages(ctx,
		proofStage{"upload", &tm.Upload, func(c cuda.Ctx) error { return upload(c, p) }},
		proofStage{"eval", &tm.Eval, func(c cuda.Ctx) error { return b.evalRows(c, rs, p) }}); err != nil {
		return err
	}
	// b and c are free after the quotient: they take the gathered A and B scalars.
	sA, sB, release, err := b.densityScratch(ctx, rs, p)
	if err != nil {
		return err
	}
	defer release()
	auxZ := p.z + cuda.DevPtr(rs.inputs*frBytes)
	gatherMSM := func(c cuda.Ctx, idx cuda.DevPtr, n int, dst cuda.DevPtr, bases baseRef, out *bls.G1Jac) (err error) {
		*out, err = b.gatherMSMG1(c, p.z, idx, n, dst, bases)
		return err
	}
	msmH := proofStage{"H", &tm.MSMH, func(c cuda.Ctx) (err error) { res.H, err = b.msmG1On(c, kb.h, p.a, rs.domain-1); return }}
	msmL := proofStage{"L", &tm.MSML, func(c cuda.Ctx) (err error) { res.L, err = b.msmG1On(c, kb.l, auxZ, rs.aux); return }}
	msmA := proofStage{"A", &tm.MSMA, func(c cuda.Ctx) error { return gatherMSM(c, rs.idxA, rs.nA, sA, kb.a, &res.A) }}
	msmB1 := proofStage{"B1", &tm.MSMB1, func(c cuda.Ctx) error { return gatherMSM(c, rs.idxB, rs.nB, sB, kb.bg1, &res.B1) }}
	msmB2 := proofStage{"B2", &tm.MSMB2, func(c cuda.Ctx) (err error) { res.B2, err = b.msmG2On(c, kb.bg2, sB, rs.nB); return }}
	side := b.sideOf(ctx)
	if !sideOK {
		side = 0
	}
	stats := newDroppedRounds(b.lib, ctx, side)
	defer stats.report(tm)
	if side == 0 {
		return b.runStages(ctx, quotient, msmH, msmL, msmA, msmB1, msmB2)
	}
	tm.SideStream = true
	// The side stream: L at once, then, once the quotient has left b and c (sA, sB) to
	// it, B1 (which gathers the B scalars that B2 reads), B2 and A; nil: stop after L.
	// The MSMs write disjoint results and buffers and read only z, h and the key.
	after := make(chan []proofStage, 1)
	done := make(chan sideResult, 1)
	go func() { done <- b.runSide(side, msmL, after) }()
	sent, joined := false, false
	defer func() { // before sA and sB are freed (defers run last-in first-out)
		if !sent {
			after <- nil
		}
		if !joined {
			err = errors.Join(err, (<-done).err)
		}
	}()
	if err := b.runStages(ctx, quotient); err != nil {
		return err // a and b half transformed: onPool's retry runs the proof again
	}
	after <- []proofStage{msmB1, msmB2, msmA}
	sent = true
	hErr := b.runStages(ctx, msmH)
	r := <-done
	joined = true
	if hErr != nil { // the H MSM reads h and writes only its own scratch: it can run again
		if !isOutOfMemory(hErr) || (r.err != nil && !isOutOfMemory(r.err)) {
			return errors.Join(hErr, r.err)
		}
		r.err = errors.Join(hErr, r.err)
		r.left = append([]proofStage{msmH}, r.left...)
	}
	return b.finishSide(ctx, rs, tm, r)
}

// sideResult is what a proof's side stream did: err, its first error, and left, the
// stages it did not finish, the failed one first.
type sideResult struct {
	err  error
	left []proofStage
}

// runSide runs the side stream's stages: first, then those that arrive on after (nil:
// none). After a failure it runs nothing more and lists the rest in left.
func (b *Backend) runSide(side cuda.Ctx, first proofStage, after <-chan []proofStage) sideResult {
	r := b.runSideStages(side, first)
	more := <-after
	if r.err != nil {
		r.left = append(r.left, more...)
		return r
	}
	return b.runSideStages(side, more...)
}

// runSideStages runs steps in order on the side stream; after a failure, left holds the
// failed step and those after it.
func (b *Backend) runSideStages(side cuda.Ctx, steps ...proofStage) sideResult {
	for k, st := range steps {
		if err := b.runStagesOn(side, true, st); err != nil {
			return sideResult{err, steps[k:]}
		}
	}
	return sideResult{}
}

// finishSide ends a proof whose side stream has stopped. When the H MSM or a side-stream
// stage ran out of device memory, the stages left (H first, then the side stream's from
// the failed one on) run on the proof's own stream after a trim, instead of failing the
// proof and running it all again (onPool's retry): on a 32 GiB Window PoSt partition that
// rerun cost about 6 s of device time (docs/BENCHMARKS.md). The shape's later proofs keep
// to one stream (keepOneStream), and OutOfMemoryRetries counts the recovery. Other errors
// fail the proof.
func (b *Backend) finishSide(ctx cuda.Ctx, rs *residentShape, tm *backend.ResidentTimings, r sideResult) error {
	if r.err == nil {
		return nil
	}
	if !isOutOfMemory(r.err) {
		return r.err
	}
	rs.keepOneStream()
	tm.OutOfMemoryRetries++
	b.trims.Add(1)
	if _, err := b.trimPools(ctx, rs); err != nil {
		return errors.Join(r.err, err)
	}
	return b.runStages(ctx, r.left...)
}

// proofStage is one stage of a resident proof: f runs it on a context, d gets its time.
type proofStage struct {
	name string // for the test hook
	d    *time.Duration
	f    func(c cuda.Ctx) error
}

// runStages runs steps in order on c, a proof stream, and stops at the first error.
func (b *Backend) runStages(c cuda.Ctx, steps ...proofStage) error {
	return b.runStagesOn(c, false, steps...)
}

// runStagesOn is runStages on a proof stream or (side) its side context.
func (b *Backend) runStagesOn(c cuda.Ctx, side bool, steps ...proofStage) error {
	for _, st := range steps {
		t := time.Now()
		err := b.stageHook(st.name, side)
		if err == nil {
			err = st.f(c)
		}
		*st.d = time.Since(t)
		if err != nil {
			return err
		}
	}
	return nil
}

// droppedRounds counts the MSMs of one proof that ran without their pair rounds, over
// the proof's contexts (the library counts per context).
type droppedRounds struct {
	lib    *cuda.Lib
	ctxs   []cuda.Ctx
	before []cuda.MSMStats
	err    error
}

func newDroppedRounds(lib *cuda.Lib, ctx, side cuda.Ctx) *droppedRounds {
	d := &droppedRounds{lib: lib, ctxs: []cuda.Ctx{ctx}}
	if side != 0 {
		d.ctxs = append(d.ctxs, side)
	}
	for _, c := range d.ctxs {
		s, err := lib.MSMStats(c)
		d.before, d.err = append(d.before, s), errors.Join(d.err, err)
	}
	return d
}

// report sets tm.MSMRoundsDropped; a library without the counters leaves it 0.
func (d *droppedRounds) report(tm *backend.ResidentTimings) {
	if d.err != nil {
		return
	}
	n := 0
	for i, c := range d.ctxs {
		after, err := d.lib.MSMStats(c)
		if err != nil {
			return
		}
		n += int(after.RoundsDropped - d.before[i].RoundsDropped)
	}
	tm.MSMRoundsDropped = n
}

// densityScratch returns the buffers of a proof's gathered A and B scalars: b and c when
// they are long enough, else fresh buffers, which release frees.
func (b *Backend) densityScratch(ctx cuda.Ctx, rs *residentShape, p *proofBufs) (sA, sB cuda.DevPtr, release func(), err error) {
	if sA, err = b.scratch(ctx, p.b, rs.domain, rs.nA); err != nil {
		return 0, 0, nil, err
	}
	if sB, err = b.scratch(ctx, p.c, rs.domain, rs.nB); err != nil {
		b.freeIfNot(ctx, sA, p.b)
		return 0, 0, nil, err
	}
	return sA, sB, func() { b.freeIfNot(ctx, sA, p.b); b.freeIfNot(ctx, sB, p.c) }, nil
}

// gatherMSMG1 gathers n scalars of z by the index list idx into dst and returns their
// G1 MSM against bases.
func (b *Backend) gatherMSMG1(ctx cuda.Ctx, z, idx cuda.DevPtr, n int, dst cuda.DevPtr, bases baseRef) (bls.G1Jac, error) {
	if err := b.lib.Gather(ctx, z, idx, uint64(n), dst); err != nil {
		return g1Infinity(), err
	}
	return b.msmG1On(ctx, bases, dst, n)
}

// scratch returns have when it holds at least n elements, else a fresh buffer.
func (b *Backend) scratch(ctx cuda.Ctx, have cuda.DevPtr, haveLen, n int) (cuda.DevPtr, error) {
	if n <= haveLen {
		return have, nil
	}
	return b.alloc(ctx, uint64(n)*frBytes)
}

func (b *Backend) freeIfNot(ctx cuda.Ctx, p, owned cuda.DevPtr) {
	if p != owned {
		_ = b.free(ctx, p)
	}
}

func g1Infinity() bls.G1Jac {
	var r bls.G1Jac
	r.X.SetOne()
	r.Y.SetOne()
	return r
}

func g2Infinity() bls.G2Jac {
	var r bls.G2Jac
	r.X.SetOne()
	r.Y.SetOne()
	return r
}

// msmG1On / msmG2On run an MSM on device scalars under the held context, over resident
// bases or streamed from host memory.
func (b *Backend) msmG1On(ctx cuda.Ctx, bases baseRef, scalars cuda.DevPtr, n int) (bls.G1Jac, error) {
	if n == 0 {
		return g1Infinity(), nil
	}
	var wins [cuda.MaxWindows]g1XYZZ
	nwins, c, err := b.msmOn(ctx, false, bases, scalars, n, unsafe.Pointer(&wins[0]))
	if err != nil {
		return g1Infinity(), err
	}
	return combineG1(wins[:nwins], c), nil
}

func (b *Backend) msmG2On(ctx cuda.Ctx, bases baseRef, scalars cuda.DevPtr, n int) (bls.G2Jac, error) {
	if n == 0 {
		return g2Infinity(), nil
	}
	var wins [cuda.MaxWindows]g2XYZZ
	nwins, c, err := b.msmOn(ctx, true, bases, scalars, n, unsafe.Pointer(&wins[0]))
	if err != nil {
		return g2Infinity(), err
	}
	return combineG2(wins[:nwins], c), nil
}

// msmOn runs the library's MSM whose bases are where ref says and checks the window count.
func (b *Backend) msmOn(ctx cuda.Ctx, g2 bool, bases baseRef, scalars cuda.DevPtr, n int, out unsafe.Pointer) (nwins, c uint32, err error) {
	if bases.host != nil {
		nwins, c, err = b.lib.MSMHost(ctx, g2, bases.host, scalars, uint64(n), b.streamChunk, b.window, out)
	} else {
		nwins, c, err = b.lib.MSM(ctx, g2, bases.dev, scalars, uint64(n), b.window, out)
	}
	if err == nil && (nwins == 0 || nwins > cuda.MaxWindows) {
		err = fmt.Errorf("library returned %d windows", nwins)
	}
	return nwins, c, err
}
