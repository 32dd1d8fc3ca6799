// Package srstest gives tests one shared cache of expensive artefacts (dev parameters)
// per machine: $SNARKPIPE_TEST_CACHE, or snarkpipe-test under the user cache directory.
// Entries are built once under a file lock, so parallel test packages share them safely.
package srstest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/snarkpipe/snarkpipe/prover"
	"github.com/snarkpipe/snarkpipe/prover/groth16"
	"github.com/snarkpipe/snarkpipe/prover/r1cs"
	"github.com/snarkpipe/snarkpipe/prover/srs"
)

// EnvCacheDir names the variable that overrides the cache location.
const EnvCacheDir = "SNARKPIPE_TEST_CACHE"

// Cache returns the test cache.
func Cache(t testing.TB) srs.DirCache {
	t.Helper()
	if dir := os.Getenv(EnvCacheDir); dir != "" {
		return srs.DirCache{Dir: dir}
	}
	base, err := os.UserCacheDir()
	if err != nil {
		base = os.TempDir()
	}
	return srs.DirCache{Dir: filepath.Join(base, "snarkpipe-test")}
}

// DevParams records c and returns its shape with dev parameters for it, generated once
// per machine and read back from the cache afterwards. The caller closes the params.
func DevParams(t testing.TB, c prover.Circuit) (*r1cs.Shape, *groth16.Params) {
	t.Helper()
	rec := r1cs.NewRecorder(r1cs.Capacity{})
	if err := c.Synthesize(rec); err != nil {
		t.Fatalf("recording %s: %v", c.ID(), err)
	}
	shape := rec.Finish()
	path, err := Cache(t).GetOrBuild(srs.DevParamsName(shape), func(tmp string) error {
		p, err := groth16.DevSetup(shape, nil)
		if err != nil {
			return err
		}
		return p.WriteFile(tmp)
	})
	if err != nil {
		t.Fatal(err)
	}
	params, err := groth16.ReadParams(path, groth16.ReadOptions{AllowDev: true})
	if err != nil {
		t.Fatalf("cached dev params %s: %v", path, err)
	}
	return shape, params
}
