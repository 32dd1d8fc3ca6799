package gpu

import (
	"fmt"

	"github.com/snarkpipe/snarkpipe/cuda"
	"github.com/snarkpipe/snarkpipe/prover/backend"
)

// Proof streams: resident proofs that run on the device at once.
//
// A resident proof is a chain of memory-bound stages (upload, A·z, the quotient's NTTs)
// and compute-bound MSMs on one CUDA stream. With Config.ProofStreams = n, up to n proofs
// run at once, each on its own library context (its own stream and timing events) with
// its own set of proof buffers from the shape's pool, so one proof's NTTs can use the
// memory bandwidth that another's MSMs leave idle. Stream 0 is the backend's main
// context, taken with the device lock b.mu as every other call does; streams 1..n−1 are
// extra contexts used only by resident proofs, so they run beside whatever holds b.mu.
//
// Memory a proof reads (a shape's arrays, key bases) must not be freed under it: each
// resident proof holds b.proofs shared, and shape Close, bases Close and Close take it
// exclusively, so they wait for the proofs in flight as they did when a proof held the
// device lock throughout. Lock order: b.proofs, b.mu, b.poolMu, b.life.

// MaxProofStreams bounds Config.ProofStreams: each stream holds a proof buffer set of
// 16 GiB at 2^27 rows.
const MaxProofStreams = 4

// proofStream is one context a resident proof can run on.
type proofStream struct {
	ctx  cuda.Ctx
	main bool // the backend's context: used under b.mu
}

// newProofStreams makes n streams: the main context and n − 1 new ones; with side, each
// also gets a side context for its small MSMs (sideOf).
func (b *Backend) newProofStreams(n int, side bool) error {
	b.streams = make(chan *proofStream, n)
	b.sides = make(map[cuda.Ctx]cuda.Ctx)
	newCtx := func(what string, i int) (cuda.Ctx, error) {
		ctx, err := b.newCtx()
		if err != nil {
			b.freeProofStreams()
			return 0, fmt.Errorf("gpu backend: proof stream %d %s: %w", i, what, err)
		}
		b.extra = append(b.extra, ctx)
		return ctx, nil
	}
	for i := 0; i < n; i++ {
		s := &proofStream{ctx: b.ctx, main: i == 0}
		if i > 0 {
			ctx, err := newCtx("context", i)
			if err != nil {
				return err
			}
			s.ctx = ctx
		}
		if side {
			ctx, err := newCtx("side context", i)
			if err != nil {
				return err
			}
			b.sides[s.ctx] = ctx
		}
		b.streams <- s
	}
	return nil
}

// sideOf is the side context of proof stream context ctx, 0 with SerialMSMs. Only the
// proof holding ctx uses it.
func (b *Backend) sideOf(ctx cuda.Ctx) cuda.Ctx { return b.sides[ctx] }

// freeProofStreams releases the extra contexts; no proof may be running.
func (b *Backend) freeProofStreams() error {
	var first error
	for _, ctx := range b.extra {
		if err := b.lib.FreeCtx(ctx); err != nil && first == nil {
			first = err
		}
	}
	b.extra = nil
	b.sides = nil
	return first
}

// ProofStreams is how many resident proofs run on the device at once
// (backend.ConcurrentProver): the pipeline reserves a proof buffer set per stream.
func (b *Backend) ProofStreams() int { return cap(b.streams) }

var _ backend.ConcurrentProver = (*Backend)(nil)

// onStream runs f on a free proof stream, holding b.proofs shared: the main stream under
// the device lock, another on its own.
func (b *Backend) onStream(f func(ctx cuda.Ctx) error) error {
	b.proofs.RLock()
	defer b.proofs.RUnlock()
	if b.closed {
		return backend.ErrClosed
	}
	s := <-b.streams
	defer func() { b.streams <- s }()
	if s.main {
		b.mu.Lock()
		defer b.mu.Unlock()
	}
	return f(s.ctx)
}

// exclusive runs f on the main context once no resident proof is in flight and none
// can start: for freeing memory that proofs read.
func (b *Backend) exclusive(f func(ctx cuda.Ctx) error) error {
	b.proofs.Lock()
	defer b.proofs.Unlock()
	return b.call(f)
}
