package srs

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/snarkpipe/snarkpipe/prover/groth16"
)

// TestWriteKeyFiles: the pair appears under its names with no .part left, reads back to
// the parameters and their verifying key; a name that is not NAME.params, a write that
// comes out at another size and a directory without room are refused, and leave neither
// file nor .part behind.
func TestWriteKeyFiles(t *testing.T) {
	_, _, p := keyPair(t)
	dir := t.TempDir()
	k := KeyFile{VK: &p.VK, Size: p.FileSize(), Write: p.WriteTo}
	params, vk, err := WriteKeyFiles(dir, "x.params", k)
	if err != nil {
		t.Fatal(err)
	}
	if params != filepath.Join(dir, "x.params") || vk != filepath.Join(dir, "x.vk") {
		t.Fatalf("paths %s, %s", params, vk)
	}
	back, err := groth16.ReadParams(params, groth16.ReadOptions{AllowDev: true})
	if err != nil {
		t.Fatal(err)
	}
	defer back.Close()
	if !back.Equal(p) {
		t.Fatal("written parameters read back differently")
	}
	v, err := groth16.ReadVerifyingKeyFile(vk)
	if err != nil || !v.Equal(&p.VK) {
		t.Fatalf("written .vk: %v", err)
	}
	if m, _ := filepath.Glob(filepath.Join(dir, "*.part")); len(m) != 0 {
		t.Fatalf("left behind: %v", m)
	}

	empty := t.TempDir()
	if _, _, err := WriteKeyFiles(empty, "x", k); err == nil {
		t.Error("a name without .params accepted")
	}
	short := k
	short.Size++
	if _, _, err := WriteKeyFiles(empty, "y.params", short); err == nil {
		t.Error("a write of another size than announced accepted")
	}
	huge := k
	huge.Size = 1 << 62
	_, _, err = WriteKeyFiles(empty, "z.params", huge)
	var ns *NoSpaceError
	if _, ok := freeSpace(empty); ok && (!errors.As(err, &ns) || ns.Dir != empty || ns.Need <= ns.Free) {
		t.Errorf("4 EiB into %s: %v, want *NoSpaceError", empty, err)
	}
	if left, _ := os.ReadDir(empty); len(left) != 0 {
		t.Errorf("failed writes left %d entries", len(left))
	}
}
