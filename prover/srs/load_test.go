package srs

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/snarkpipe/snarkpipe/prover"
	"github.com/snarkpipe/snarkpipe/prover/groth16"
	"github.com/snarkpipe/snarkpipe/prover/r1cs"
	"github.com/snarkpipe/snarkpipe/prover/r1cs/r1cstest"
)

// keyPair writes dev parameters for a small circuit as name.params + name.vk in a fresh
// directory and returns the source that loads them, the shape and the parameters.
func keyPair(t *testing.T) (Files, *r1cs.Shape, *groth16.Params) {
	t.Helper()
	shape := record(t, &r1cstest.Random{Seed: 12, Constraints: 90, Inputs: 3, Unused: 4})
	p, err := groth16.DevSetup(shape, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	dir := t.TempDir()
	if _, _, err := WriteKeyFiles(dir, "k.params", KeyFile{VK: &p.VK, Size: p.FileSize(), Write: p.WriteTo}); err != nil {
		t.Fatal(err)
	}
	files := Files{Dir: dir, Names: map[prover.CircuitID]string{"k": "k.params"}, Options: groth16.ReadOptions{AllowDev: true}}
	return files, shape, p
}

// loadFails loads the pair and returns its *LoadError, failing the test on success or on
// another error type.
func loadFails(t *testing.T, f Files, shape *r1cs.Shape) *LoadError {
	t.Helper()
	p, err := f.Params(context.Background(), "k", shape)
	if err == nil {
		p.Close()
		t.Fatal("corrupt parameters loaded")
	}
	var le *LoadError
	if !errors.As(err, &le) {
		t.Fatalf("error %T %v is not a *LoadError", err, err)
	}
	return le
}

// hOffset is the file offset of the first point of the H vector.
func hOffset(p *groth16.Params) int64 {
	return 3*96 + 3*192 + 4 + int64(len(p.VK.IC))*96 + 4
}

// TestFilesLoadRefusesCorruptPairs: the three ways a parameter directory goes wrong each
// give a *LoadError naming the file, with the typed cause, and nothing loaded: a
// truncated .params (the last byte cut off, then half of it), one flipped byte in the H
// vector, a .vk from another setup, and a missing .vk. The intact pair loads and equals
// what was written.
func TestFilesLoadRefusesCorruptPairs(t *testing.T) {
	f, shape, want := keyPair(t)
	path := filepath.Join(f.Dir, "k.params")
	got, err := f.Params(context.Background(), "k", shape)
	if err != nil {
		t.Fatal(err)
	}
	if !got.Equal(want) {
		t.Fatal("loaded parameters differ from the written ones")
	}
	got.Close()
	orig, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	restore := func() {
		if err := os.WriteFile(path, orig, 0o644); err != nil {
			t.Fatal(err)
		}
	}

	t.Run("truncated", func(t *testing.T) {
		defer restore()
		for _, size := range []int{len(orig) - 1, len(orig) / 2} {
			if err := os.Truncate(path, int64(size)); err != nil {
				t.Fatal(err)
			}
			le := loadFails(t, f, shape)
			var fe *groth16.FormatError
			if !errors.As(le, &fe) || le.Path != path || !strings.Contains(le.Error(), path) {
				t.Fatalf("truncated to %d bytes: %v", size, le)
			}
			// Cut inside a vector: its length field promises more than remains. Cut inside
			// the dev trailer: the trailer is short.
			if !errors.Is(le, groth16.ErrTruncated) && !errors.Is(le, groth16.ErrBadDevTrailer) {
				t.Fatalf("truncated to %d bytes: %v", size, le)
			}
		}
	})

	t.Run("flipped byte in h", func(t *testing.T) {
		defer restore()
		bad := append([]byte(nil), orig...)
		off := hOffset(want) + 96*2 + 20 // h[2]'s x coordinate
		bad[off] ^= 0x10
		if err := os.WriteFile(path, bad, 0o644); err != nil {
			t.Fatal(err)
		}
		le := loadFails(t, f, shape)
		var fe *groth16.FormatError
		if !errors.As(le, &fe) || fe.Vector != "h" || fe.Index != 2 || fe.Offset != hOffset(want)+96*2 {
			t.Fatalf("flipped byte: %v", le)
		}
		if !errors.Is(fe, groth16.ErrNotOnCurve) && !errors.Is(fe, groth16.ErrNonCanonical) {
			t.Fatalf("flipped byte: %v, want a point off the curve", le)
		}
		if !strings.Contains(le.Error(), "h[2]") || !strings.Contains(le.Error(), path) {
			t.Fatalf("message does not name the file and point: %v", le)
		}
	})

	t.Run("foreign vk", func(t *testing.T) {
		vkPath := VKPath(path)
		vk := want.VK
		vk.DeltaG1 = want.VK.AlphaG1 // a valid point, another key
		writeVK(t, vkPath, &vk)
		defer writeVK(t, vkPath, &want.VK)
		le := loadFails(t, f, shape)
		var me *VKMismatchError
		if !errors.As(le, &me) || !errors.Is(le, ErrVKMismatch) || me.Params != path || me.VK != vkPath || me.Field != "delta_g1" {
			t.Fatalf("foreign .vk: %v", le)
		}
		if msg := le.Error(); !strings.Contains(msg, path) || !strings.Contains(msg, vkPath) || !strings.Contains(msg, "delta_g1") {
			t.Fatalf("message does not name both files and the field: %s", msg)
		}
	})

	t.Run("missing vk", func(t *testing.T) {
		vkPath := VKPath(path)
		if err := os.Remove(vkPath); err != nil {
			t.Fatal(err)
		}
		defer writeVK(t, vkPath, &want.VK)
		if le := loadFails(t, f, shape); !errors.Is(le, fs.ErrNotExist) || !strings.Contains(le.Error(), vkPath) {
			t.Fatalf("missing .vk: %v", le)
		}
	})

	got, err = f.Params(context.Background(), "k", shape)
	if err != nil {
		t.Fatalf("restored pair: %v", err)
	}
	got.Close()
}

func writeVK(t *testing.T, path string, vk *groth16.VerifyingKey) {
	t.Helper()
	out, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := vk.WriteTo(out); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}
