//go:build !linux

package groth16

import (
	"fmt"
	"os"
)

// Off Linux (the service runs on Linux GPU hosts) the vectors live on the Go heap and
// files are read whole.

// offheapBlock mirrors the Linux type; mem stays nil here.
type offheapBlock struct {
	mem []byte
}

func (offheapBlock) free() error { return nil }

func allocVector[T any](n int) ([]T, offheapBlock, error) {
	if n < 0 {
		return nil, offheapBlock{}, fmt.Errorf("groth16: negative vector length %d", n)
	}
	return make([]T, n), offheapBlock{}, nil
}

func mapFileReadOnly(path string) ([]byte, func() error, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	return data, func() error { return nil }, nil
}

func prefaultRead([]byte) {}
