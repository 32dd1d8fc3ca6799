//go:build linux

package gpu

import (
	"fmt"
	"syscall"
)

// mapHost returns size bytes of zeroed anonymous memory off the Go heap: a streamed key's
// vectors are tens of gigabytes, which the collector must neither count nor scan.
func mapHost(size uint64) ([]byte, error) {
	mem, err := syscall.Mmap(-1, 0, int(size), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		return nil, fmt.Errorf("gpu backend: mmap %d bytes of host memory: %w", size, err)
	}
	return mem, nil
}

func unmapHost(mem []byte) error {
	if err := syscall.Munmap(mem); err != nil {
		return fmt.Errorf("gpu backend: munmap %d bytes of host memory: %w", len(mem), err)
	}
	return nil
}
