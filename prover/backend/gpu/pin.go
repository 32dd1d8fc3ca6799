package gpu

import (
	"errors"
	"sync"
	"unsafe"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/snarkpipe/snarkpipe/cuda"
	"github.com/snarkpipe/snarkpipe/prover/backend"
)

var _ backend.HostPinner = (*Backend)(nil)

// PinHost page-locks v's memory (see backend.HostPinner). Go's collector does not move
// heap objects, and the returned function keeps v reachable until it is called, so the
// registered range stays valid. unpin is idempotent.
//
// Neither PinHost nor unpin takes the device lock: page-locking uses the context's
// device but not its stream (cuda/host.cu), so a synthesis worker pinning a new slot
// does not wait for the proof running on the device. The range is registered portable
// (pinned for every GPU of the process). The caller must not unpin a vector while an
// upload from it is in progress (the pipeline unpins a slot only when freeing it).
func (b *Backend) PinHost(v []fr.Element) (func() error, error) {
	if len(v) == 0 {
		return nil, errors.New("gpu backend: PinHost of an empty vector")
	}
	p := unsafe.Pointer(&v[0])
	bytes := uint64(len(v)) * frBytes
	if err := b.onContext(func(ctx cuda.Ctx) error { return b.lib.HostRegister(ctx, p, bytes) }); err != nil {
		return nil, wrap("pin host memory", err)
	}
	var once sync.Once
	var err error
	return func() error {
		once.Do(func() {
			err = wrap("unpin host memory", b.onContext(func(ctx cuda.Ctx) error { return b.lib.HostUnregister(ctx, unsafe.Pointer(&v[0])) }))
		})
		return err
	}, nil
}

// onContext runs f with the context while it exists, without the device lock: for calls
// that do not use the context's stream. Close waits for it.
func (b *Backend) onContext(f func(ctx cuda.Ctx) error) error {
	b.life.RLock()
	defer b.life.RUnlock()
	if b.closed {
		return backend.ErrClosed
	}
	return f(b.ctx)
}
