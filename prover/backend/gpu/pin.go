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
func (b *Backend) PinHost(v []fr.Element) (func() error, error) {
	if len(v) == 0 {
		return nil, errors.New("gpu backend: PinHost of an empty vector")
	}
	p := unsafe.Pointer(&v[0])
	bytes := uint64(len(v)) * frBytes
	if err := b.call(func(ctx cuda.Ctx) error { return b.lib.HostRegister(ctx, p, bytes) }); err != nil {
		return nil, wrap("pin host memory", err)
	}
	var once sync.Once
	var err error
	return func() error {
		once.Do(func() {
			err = wrap("unpin host memory", b.call(func(ctx cuda.Ctx) error { return b.lib.HostUnregister(ctx, unsafe.Pointer(&v[0])) }))
		})
		return err
	}, nil
}
