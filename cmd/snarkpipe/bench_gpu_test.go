package main

import (
	"context"
	"errors"
	"github.com/snarkpipe/snarkpipe/prover/backend/gpu"
	"path/filepath"
	"testing"
)

func TestBenchGPUWithoutLibraryIsErrNoCUDA(t *testing.T) {
	lib := filepath.Join(t.TempDir(), gpu.LibName)
	err := run(context.Background(), []string{"snarkpipe", "bench", "gpu", "--lib", lib})
	if !errors.Is(err, gpu.ErrNoCUDA) {
		t.Fatalf("bench gpu without the library: %v, want ErrNoCUDA", err)
	}
}
