//go:build linux

package groth16

import (
	"fmt"
	"os"
	"runtime"
	"syscall"
	"unsafe"
)

// Point vectors of a production parameter file are tens of gigabytes. On the Go heap they
// would count toward GOGC's heap goal (a 44 GiB live heap lets garbage grow by another
// 44 GiB before the next collection) and would be returned only when the collector gets
// to them. Instead they live in anonymous mappings released explicitly by Params.Close.
// The point types contain no Go pointers, so the collector never needs to see this memory.

// offheapMinBytes is the size under which a vector simply lives on the Go heap: a mapping
// costs a syscall and rounds up to a page, which is not worth it for the verifying key's
// IC vector or for tiny test parameters.
const offheapMinBytes = 1 << 20

// offheapBlock is one anonymous mapping; the zero value stands for heap memory and frees
// nothing.
type offheapBlock struct {
	mem []byte
}

func (b offheapBlock) free() error {
	if b.mem == nil {
		return nil
	}
	if err := syscall.Munmap(b.mem); err != nil {
		return fmt.Errorf("groth16: munmap %d bytes: %w", len(b.mem), err)
	}
	return nil
}

// allocVector returns a zeroed slice of n values of T, off the Go heap when it is large.
// T must not contain Go pointers (bls.G1Affine and bls.G2Affine do not).
func allocVector[T any](n int) ([]T, offheapBlock, error) {
	var zero T
	size := uintptr(n) * unsafe.Sizeof(zero)
	if n < 0 || (n > 0 && size/uintptr(n) != unsafe.Sizeof(zero)) {
		return nil, offheapBlock{}, fmt.Errorf("groth16: vector of %d points does not fit in memory", n)
	}
	if size < offheapMinBytes {
		return make([]T, n), offheapBlock{}, nil
	}
	mem, err := syscall.Mmap(-1, 0, int(size), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		return nil, offheapBlock{}, fmt.Errorf("groth16: mmap %d bytes for %d points: %w", size, n, err)
	}
	adviseHugePages(mem)
	return unsafe.Slice((*T)(unsafe.Pointer(&mem[0])), n), offheapBlock{mem: mem}, nil
}

// Linux madvise advice values (not all of them are in package syscall).
const (
	linuxMadvHugePage     = 14 // MADV_HUGEPAGE
	linuxMadvPopulateRead = 22 // MADV_POPULATE_READ, Linux 5.14+
)

// adviseHugePages asks for transparent huge pages on a vector: a 2 MiB page costs one
// fault instead of 512, and the GPU backend later pins or copies these vectors whole.
// Advice only; failure (old kernel, THP disabled) changes nothing.
func adviseHugePages(mem []byte) {
	_ = syscall.Madvise(mem, linuxMadvHugePage)
}

// prefaultRead maps in the pages of a read-only file range in one call, instead of one
// page fault per few pages while decoding. Advice only, like adviseHugePages.
func prefaultRead(b []byte) {
	if len(b) == 0 {
		return
	}
	// madvise wants a page-aligned start. The aligned address may lie before b's own
	// memory, so it is computed and passed as a plain integer, never as a Go pointer.
	start := uintptr(unsafe.Pointer(&b[0]))
	aligned := start &^ uintptr(os.Getpagesize()-1)
	syscall.Syscall(syscall.SYS_MADVISE, aligned, uintptr(len(b))+start-aligned, linuxMadvPopulateRead)
	runtime.KeepAlive(b)
}

// mapFileReadOnly maps a whole file read-only. The returned release function unmaps it.
// An empty file maps to an empty slice (mmap refuses length 0).
func mapFileReadOnly(path string) ([]byte, func() error, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, nil, fmt.Errorf("groth16: %s is not a regular file", path)
	}
	size := st.Size()
	if size == 0 {
		return []byte{}, func() error { return nil }, nil
	}
	if size != int64(int(size)) {
		return nil, nil, fmt.Errorf("groth16: %s: %d bytes do not fit in the address space", path, size)
	}
	data, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, nil, fmt.Errorf("groth16: mmap %s: %w", path, err)
	}
	return data, func() error { return syscall.Munmap(data) }, nil
}
