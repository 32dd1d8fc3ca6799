package kit

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/snarkpipe/snarkpipe/prover/srs/srstest"
)

var (
	binaryOnce sync.Once
	binaryPath string
	binaryErr  error
)

// EnvBinary names a prebuilt snarkpipe binary to use instead of building one (for
// running the integration tests against a release build, or while the working tree does
// not build).
const EnvBinary = "SNARKPIPE_ITEST_BIN"

// Binary builds ./cmd/snarkpipe (CGO_ENABLED=0) once per test process and returns its
// path ($SNARKPIPE_ITEST_BIN instead, when set). The binary is written under the shared test cache (itest-bin/) and renamed into
// place, so no temporary copy outlives the process and a concurrent test process still
// running the previous build is not disturbed; Go's build cache makes the rebuild a link.
func Binary(t testing.TB) string {
	t.Helper()
	binaryOnce.Do(func() {
		if p := os.Getenv(EnvBinary); p != "" {
			binaryPath, binaryErr = filepath.Abs(p)
			return
		}
		binaryPath, binaryErr = buildBinary(srstest.Cache(t).Dir)
	})
	if binaryErr != nil {
		t.Fatalf("kit: building snarkpipe: %v", binaryErr)
	}
	return binaryPath
}

func buildBinary(cacheDir string) (string, error) {
	root, err := moduleRoot()
	if err != nil {
		return "", err
	}
	dir := filepath.Join(cacheDir, "itest-bin")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	tmp, err := os.CreateTemp(dir, "snarkpipe-build-*")
	if err != nil {
		return "", err
	}
	tmp.Close()
	cmd := exec.Command("go", "build", "-o", tmp.Name(), "./cmd/snarkpipe")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		os.Remove(tmp.Name())
		return "", fmt.Errorf("go build ./cmd/snarkpipe: %w\n%s", err, out)
	}
	final := filepath.Join(dir, "snarkpipe")
	if err := os.Rename(tmp.Name(), final); err != nil {
		os.Remove(tmp.Name())
		return "", err
	}
	return final, nil
}

var (
	rootOnce sync.Once
	rootDir  string
	rootErr  error
)

// moduleRoot is the directory of snarkpipe's go.mod, found upwards from the working
// directory (a test's working directory is its package directory).
func moduleRoot() (string, error) {
	rootOnce.Do(func() {
		dir, err := os.Getwd()
		if err != nil {
			rootErr = err
			return
		}
		for {
			if b, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil && isSnarkpipeModule(b) {
				rootDir = dir
				return
			}
			parent := filepath.Dir(dir)
			if parent == dir {
				rootErr = errors.New("kit: no snarkpipe go.mod above the working directory")
				return
			}
			dir = parent
		}
	})
	return rootDir, rootErr
}

func isSnarkpipeModule(gomod []byte) bool {
	const want = "module github.com/snarkpipe/snarkpipe\n"
	return len(gomod) >= len(want) && string(gomod[:len(want)]) == want
}
