package pipeline

import (
	"strings"
	"testing"
)

// TestCodeIDOfExecutable: the running binary has a SHA-256 code id, the same on every call.
func TestCodeIDOfExecutable(t *testing.T) {
	a, err := CodeIDOfExecutable()
	if err != nil {
		t.Fatal(err)
	}
	b, err := CodeIDOfExecutable()
	if err != nil {
		t.Fatal(err)
	}
	if a != b || !strings.HasPrefix(a, "sha256:") || len(a) != len("sha256:")+64 {
		t.Fatalf("code ids %q and %q: want one sha256:<64 hex digits>", a, b)
	}
}
