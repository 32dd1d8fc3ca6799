package types

import (
	"os"
	"path/filepath"
	"testing"
)

// upstreamDir is the shared read-only fixture folder, relative to this package.
const upstreamDir = "../../shared/testdata/upstream"

// readUpstream returns a fixture's bytes, skipping the test when the fixtures are absent.
func readUpstream(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(upstreamDir, name))
	if os.IsNotExist(err) {
		t.Skipf("upstream fixture %s not present (expected under %s)", name, upstreamDir)
	}
	if err != nil {
		t.Fatal(err)
	}
	return b
}
