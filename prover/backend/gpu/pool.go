package gpu

import (
	"errors"

	"github.com/snarkpipe/snarkpipe/cuda"
	"github.com/snarkpipe/snarkpipe/prover/backend"
	"github.com/snarkpipe/snarkpipe/prover/r1cs"
)

// Proof pools: a resident shape's per-proof device vectors, kept between proofs.
//
// A proof on the pre-compiled path needs z = inputs ‖ aux and the three domain-sized row
// vectors a, b, c: four vectors of 4 GiB at 2^27. A shape's first proof allocates such a
// set and the shape keeps it until it is closed, or until a trim (TrimIdle, or an
// allocation that failed for lack of device memory) takes it back; so steady-state
// proofs allocate nothing of that size. With several proof streams (streams.go) a shape
// may hold one set per proof running at once: a proof checks a set out of the pool for
// its duration and returns it, and trims free only the sets that are checked in. The
// pools and the shapes map are guarded by b.poolMu, held briefly.

// proofPool is one shape's pooled vectors.
type proofPool struct {
	idle  []proofBufs // sets not in use by a proof
	sets  int         // sets allocated, idle or in use
	bytes uint64      // device bytes of all sets
}

// ProofPoolBytes is the device memory one proof buffer set of a resident shape of these
// sizes holds from the proof that allocated it until the shape is closed or trimmed:
// z (inputs and aux) and the three domain-sized row vectors, 32 bytes per element. A
// backend with n proof streams may hold n sets per shape.
func ProofPoolBytes(s r1cs.Sizes) uint64 {
	return uint64(s.NumInputs+s.NumAux)*frBytes + 3*uint64(s.DomainSize())*frBytes
}

func proofSetBytes(rs *residentShape) uint64 {
	return uint64(rs.inputs+rs.aux)*frBytes + 3*uint64(rs.domain)*frBytes
}

// checkout takes an idle set of rs's pool, or allocates one on ctx. A failed allocation
// leaves the pool as it was.
func (b *Backend) checkout(ctx cuda.Ctx, rs *residentShape) (*proofBufs, error) {
	pl := &rs.pool
	b.poolMu.Lock()
	if n := len(pl.idle); n > 0 {
		p := pl.idle[n-1]
		pl.idle = pl.idle[:n-1]
		b.poolMu.Unlock()
		return &p, nil
	}
	b.poolMu.Unlock()
	var p proofBufs
	zBytes, rowBytes := uint64(rs.inputs+rs.aux)*frBytes, uint64(rs.domain)*frBytes
	for _, v := range []struct {
		dst   *cuda.DevPtr
		bytes uint64
	}{{&p.z, zBytes}, {&p.a, rowBytes}, {&p.b, rowBytes}, {&p.c, rowBytes}} {
		var err error
		if *v.dst, err = b.alloc(ctx, max(v.bytes, 1)); err != nil {
			_ = p.free(b, ctx)
			return nil, err
		}
	}
	set := proofSetBytes(rs)
	b.poolMu.Lock()
	pl.sets++
	pl.bytes += set
	rs.poolBytes.Store(pl.bytes)
	b.poolMu.Unlock()
	b.pooled.Add(set)
	return &p, nil
}

// checkin returns a set taken by checkout to rs's pool.
func (b *Backend) checkin(rs *residentShape, p *proofBufs) {
	b.poolMu.Lock()
	rs.pool.idle = append(rs.pool.idle, *p)
	b.poolMu.Unlock()
}

// dropIdle frees rs's idle sets and returns how many bytes that released; b.poolMu is
// held. Sets in use stay with their proofs and come back idle.
func (b *Backend) dropIdle(ctx cuda.Ctx, rs *residentShape) (uint64, error) {
	pl := &rs.pool
	var errs []error
	for i := range pl.idle {
		errs = append(errs, pl.idle[i].free(b, ctx))
	}
	freed := uint64(len(pl.idle)) * proofSetBytes(rs)
	pl.sets -= len(pl.idle)
	pl.bytes -= freed
	pl.idle = nil
	b.pooled.Add(-freed)
	rs.poolBytes.Store(pl.bytes)
	return freed, errors.Join(errs...)
}

// trimPools frees the idle sets of every loaded shape except keep, then hands the
// library's cached device memory back to the device.
func (b *Backend) trimPools(ctx cuda.Ctx, keep *residentShape) (uint64, error) {
	var freed uint64
	var errs []error
	b.poolMu.Lock()
	for rs := range b.shapes {
		if rs == keep {
			continue
		}
		n, err := b.dropIdle(ctx, rs)
		freed += n
		errs = append(errs, err)
	}
	b.poolMu.Unlock()
	errs = append(errs, b.lib.Trim(ctx))
	return freed, errors.Join(errs...)
}

// TrimIdle frees the proof buffer sets that no proof is using, of every loaded shape,
// and returns the library's cached device memory to the device, for a caller about to
// load something large. It waits for a proof on the main stream; sets in use by proofs
// on other streams stay with them. The next proofs allocate their sets again. It reports
// the pool bytes freed.
func (b *Backend) TrimIdle() (freed uint64, err error) {
	err = b.call(func(ctx cuda.Ctx) error {
		var err error
		freed, err = b.trimPools(ctx, nil)
		return err
	})
	return freed, wrap("trim idle pools", err)
}

// ReserveProofBuffers allocates the proof buffer set the shape's first proof would
// (backend.BufferReserver), on the proof stream and with the same out-of-memory retry;
// with an idle set already pooled it allocates nothing.
func (b *Backend) ReserveProofBuffers(s backend.ResidentShape) error {
	rs, err := b.resident(s)
	if err != nil {
		return err
	}
	return wrap("reserve proof buffers", b.onPool(rs, nil, func(cuda.Ctx, *proofBufs, bool) error { return nil }))
}

// PooledBytes is the device memory the proof pools of all loaded shapes hold now. It
// does not wait for a proof in progress.
func (b *Backend) PooledBytes() uint64 { return b.pooled.Load() }

// isOutOfMemory reports whether err is the library's device out-of-memory status.
func isOutOfMemory(err error) bool {
	var se *cuda.StatusError
	return errors.As(err, &se) && se.Code == cuda.CodeNoMemory
}

// retryOnOOM runs f on ctx; when f fails for lack of device memory it frees the idle
// proof buffer sets of the shapes other than keep (keep's are what f is about to use
// again) and the library's cache, and runs f once more. f must be safe to run again from
// its start: every proof stage rewrites what it reads later.
func (b *Backend) retryOnOOM(ctx cuda.Ctx, keep *residentShape, f func() error) error {
	err := f()
	if !isOutOfMemory(err) {
		return err
	}
	b.trims.Add(1)
	if _, trimErr := b.trimPools(ctx, keep); trimErr != nil {
		return errors.Join(err, trimErr)
	}
	return f()
}
