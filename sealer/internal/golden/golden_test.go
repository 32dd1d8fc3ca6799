package golden

import (
	"path/filepath"
	"testing"
)

func TestRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "counts.golden")
	if got, err := Read(path, true); err != nil || len(got) != 0 {
		t.Fatalf("missing file: %v %v", got, err)
	}
	if _, err := Read(path, false); err == nil {
		t.Fatal("missing file accepted")
	}
	lines := map[string]string{"b": "b rows=2", "a": "a rows=1"}
	if err := Write(path, []string{"header"}, lines); err != nil {
		t.Fatal(err)
	}
	got, err := Read(path, false)
	if err != nil || len(got) != 2 || got["a"] != "a rows=1" || got["b"] != "b rows=2" {
		t.Fatalf("read back %v, %v", got, err)
	}
}
