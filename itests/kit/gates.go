package kit

import (
	"path/filepath"
	"testing"

	"github.com/snarkpipe/snarkpipe/prover/backend/gpu"
)

// Expensive skips t under -short: the test proves a 2 KiB C2 on the CPU or otherwise
// takes more than a few seconds, and CI's fast run (`go test -short ./...`) has no
// room for it. `make itest` runs without -short.
func Expensive(t testing.TB) {
	t.Helper()
	if testing.Short() {
		t.Skip("expensive integration test: skipped with -short (run without -short, e.g. make itest)")
	}
}

// NeedsGPU skips t unless the CUDA library (cuda/build/libsnarkpipe_cuda.so, built by
// `make cuda`) loads and device 0 opens. The daemons StartDaemon starts find the library
// there too (their working directory is the module root).
func NeedsGPU(t testing.TB) {
	t.Helper()
	root, err := moduleRoot()
	if err != nil {
		t.Skipf("no GPU: %v", err)
	}
	be, err := gpu.New(gpu.Config{LibPath: filepath.Join(root, "cuda", "build", gpu.LibName)})
	if err != nil {
		t.Skipf("no GPU: %v", err)
	}
	be.Close()
}
