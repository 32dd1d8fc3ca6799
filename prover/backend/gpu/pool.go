package gpu

import (
	"errors"

	"github.com/snarkpipe/snarkpipe/cuda"
	"github.com/snarkpipe/snarkpipe/prover/r1cs"
)

// Proof pools: a resident shape's per-proof device vectors, kept between proofs.
//
// A proof on the pre-compiled path needs z = inputs ‖ aux and the three domain-sized row
// vectors a, b, c: four vectors of 4 GiB at 2^27. A shape's first proof allocates them
// and the shape keeps them until it is closed, or until a trim (TrimIdle, or an
// allocation that failed for lack of device memory) takes them back; so steady-state
// proofs allocate nothing of that size. Pools are only touched under the device lock,
// which a proof holds from its upload to its last MSM: one pool never serves two proofs
// at once, and every pool is idle whenever the lock is free.

// proofPool is one shape's pooled vectors.
type proofPool struct {
	bufs  proofBufs
	bytes uint64 // device bytes held; 0 when empty
}

// ProofPoolBytes is the device memory a resident shape of these sizes holds in its proof
// pool from its first proof until it is closed or trimmed: z (inputs and aux) and the
// three domain-sized row vectors, 32 bytes per element.
func ProofPoolBytes(s r1cs.Sizes) uint64 {
	return uint64(s.NumInputs+s.NumAux)*frBytes + 3*uint64(s.DomainSize())*frBytes
}

func proofPoolBytes(rs *residentShape) uint64 {
	return uint64(rs.inputs+rs.aux)*frBytes + 3*uint64(rs.domain)*frBytes
}

// proofBuffers returns rs's pooled vectors, allocating them on the shape's first proof
// (or its first after a trim). A failed allocation leaves the pool empty.
func (b *Backend) proofBuffers(ctx cuda.Ctx, rs *residentShape) (*proofBufs, error) {
	pl := &rs.pool
	if pl.bytes != 0 {
		return &pl.bufs, nil
	}
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
	pl.bufs, pl.bytes = p, proofPoolBytes(rs)
	b.pooled.Add(pl.bytes)
	rs.poolBytes.Store(pl.bytes)
	return &pl.bufs, nil
}

// dropPool frees rs's pooled vectors and returns how many bytes that released.
func (b *Backend) dropPool(ctx cuda.Ctx, rs *residentShape) (uint64, error) {
	pl := &rs.pool
	if pl.bytes == 0 {
		return 0, nil
	}
	err := pl.bufs.free(b, ctx)
	freed := pl.bytes
	b.pooled.Add(-freed)
	*pl = proofPool{}
	rs.poolBytes.Store(0)
	return freed, err
}

// trimLocked frees the pools of every loaded shape except keep, then hands the library's
// cached device memory back to the device. The device lock is held, so every pool is idle.
func (b *Backend) trimLocked(ctx cuda.Ctx, keep *residentShape) (uint64, error) {
	var freed uint64
	var errs []error
	for rs := range b.shapes {
		if rs == keep {
			continue
		}
		n, err := b.dropPool(ctx, rs)
		freed += n
		errs = append(errs, err)
	}
	errs = append(errs, b.lib.Trim(ctx))
	return freed, errors.Join(errs...)
}

// TrimIdle frees the proof pools of every loaded shape and returns the library's cached
// device memory to the device, for a caller about to load something large. It waits for
// a proof in progress (pools in use are not idle). The next proof of each shape
// allocates its pool again. It reports the pool bytes freed.
func (b *Backend) TrimIdle() (freed uint64, err error) {
	err = b.call(func(ctx cuda.Ctx) error {
		var err error
		freed, err = b.trimLocked(ctx, nil)
		return err
	})
	return freed, wrap("trim idle pools", err)
}

// PooledBytes is the device memory the proof pools of all loaded shapes hold now. It
// does not wait for a proof in progress.
func (b *Backend) PooledBytes() uint64 { return b.pooled.Load() }

// isOutOfMemory reports whether err is the library's device out-of-memory status.
func isOutOfMemory(err error) bool {
	var se *cuda.StatusError
	return errors.As(err, &se) && se.Code == cuda.CodeNoMemory
}

// retryOnOOM runs f on the held context; when f fails for lack of device memory it frees
// the pools of the shapes other than keep (keep's pool is what f is about to use again)
// and the library's cache, and runs f once more. f must be safe to run again from its
// start: every proof stage rewrites what it reads later.
func (b *Backend) retryOnOOM(ctx cuda.Ctx, keep *residentShape, f func() error) error {
	err := f()
	if !isOutOfMemory(err) {
		return err
	}
	b.trims++
	if _, trimErr := b.trimLocked(ctx, keep); trimErr != nil {
		return errors.Join(err, trimErr)
	}
	return f()
}
