//go:build unix

package pipeline

import (
	"fmt"
	"syscall"
	"unsafe"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// Working-set vectors of a production partition are gigabytes; on the Go heap they would
// inflate the collector's heap goal and be returned only when it gets to them. They live in
// anonymous mappings instead, released explicitly by the freer.
const offHeapMinBytes = 1 << 20

type memBlock struct{ mem []byte }

func (b memBlock) free() error {
	if b.mem == nil {
		return nil
	}
	if err := syscall.Munmap(b.mem); err != nil {
		return fmt.Errorf("pipeline: munmap %d bytes: %w", len(b.mem), err)
	}
	return nil
}

func allocElements(n int) ([]fr.Element, memBlock, error) {
	size := uintptr(n) * unsafe.Sizeof(fr.Element{})
	if size < offHeapMinBytes {
		return make([]fr.Element, n), memBlock{}, nil
	}
	mem, err := syscall.Mmap(-1, 0, int(size), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		return nil, memBlock{}, fmt.Errorf("pipeline: mmap %d bytes: %w", size, err)
	}
	return unsafe.Slice((*fr.Element)(unsafe.Pointer(&mem[0])), n), memBlock{mem: mem}, nil
}
