package main

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/snarkpipe/snarkpipe/cuda"
)

func TestBenchGPUWithoutLibraryIsErrNoCUDA(t *testing.T) {
	lib := filepath.Join(t.TempDir(), cuda.LibName)
	err := run(context.Background(), []string{"snarkpipe", "bench", "gpu", "--lib", lib})
	if !errors.Is(err, cuda.ErrNoCUDA) {
		t.Fatalf("bench gpu without the library: %v, want ErrNoCUDA", err)
	}
}
