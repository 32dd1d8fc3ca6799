package r1cs_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/snarkpipe/snarkpipe/prover/r1cs"
	"github.com/snarkpipe/snarkpipe/prover/r1cs/r1cstest"
)

func recordShape(t testing.TB, c interface {
	Synthesize(r1cs.ConstraintSystem) error
}) *r1cs.Shape {
	t.Helper()
	rec := r1cs.NewRecorder(r1cs.Capacity{})
	if err := c.Synthesize(rec); err != nil {
		t.Fatal(err)
	}
	return rec.Finish()
}

func encodeShape(t testing.TB, s *r1cs.Shape) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := r1cs.EncodeShape(&buf, s); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestShapeFileRoundTripIsBitIdentical(t *testing.T) {
	for _, c := range []interface {
		Synthesize(r1cs.ConstraintSystem) error
	}{
		&r1cstest.Random{Seed: 1, Constraints: 300, Inputs: 5, Unused: 20},
		&r1cstest.Random{Seed: 2, Constraints: 64, Inputs: 63}, // input bitmap ends on a word boundary
		&r1cstest.Chain{N: 100},
	} {
		s := recordShape(t, c)
		path := filepath.Join(t.TempDir(), "s.r1cs")
		if err := r1cs.WriteShapeFile(path, s); err != nil {
			t.Fatal(err)
		}
		data, _ := os.ReadFile(path)
		if int64(len(data)) != r1cs.EncodedShapeLen(s) {
			t.Fatalf("file has %d bytes, EncodedShapeLen says %d", len(data), r1cs.EncodedShapeLen(s))
		}
		got, err := r1cs.ReadShapeFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, s) {
			t.Fatal("reloaded shape differs from the recorded one")
		}
		if again := encodeShape(t, got); !bytes.Equal(again, data) {
			t.Fatal("re-encoding the reloaded shape changes the bytes")
		}
		entries, _ := os.ReadDir(filepath.Dir(path))
		if len(entries) != 1 {
			t.Fatalf("atomic write left %d entries in the directory", len(entries))
		}
	}
}

// Every single-byte corruption must be refused, whichever region it hits.
func TestShapeFileDetectsEveryByteFlip(t *testing.T) {
	s := recordShape(t, &r1cstest.Random{Seed: 3, Constraints: 40, Inputs: 3, Unused: 4})
	data := encodeShape(t, s)
	for i := range data {
		bad := bytes.Clone(data)
		bad[i] ^= 0x40
		if _, err := r1cs.DecodeShape(bad); err == nil {
			t.Fatalf("flipping byte %d of %d went unnoticed", i, len(data))
		}
	}
}

func TestShapeFileRefusesTruncationVersionAndTrailingBytes(t *testing.T) {
	s := recordShape(t, &r1cstest.Chain{N: 10})
	data := encodeShape(t, s)
	for _, n := range []int{0, 7, 20, len(data) / 2, len(data) - 1} {
		if _, err := r1cs.DecodeShape(data[:n]); !errors.Is(err, r1cs.ErrShapeFileCorrupt) {
			t.Fatalf("truncated to %d bytes: %v", n, err)
		}
	}
	if _, err := r1cs.DecodeShape(append(bytes.Clone(data), 0)); !errors.Is(err, r1cs.ErrShapeFileCorrupt) {
		t.Fatalf("trailing byte: %v", err)
	}
	v2 := bytes.Clone(data)
	v2[8] = 2
	if _, err := r1cs.DecodeShape(v2); !errors.Is(err, r1cs.ErrShapeFileVersion) {
		t.Fatalf("version 2: %v", err)
	}
	if _, err := r1cs.DecodeShape(data); err != nil {
		t.Fatal(err)
	}
}

func TestWriteShapeFileFailureLeavesNothing(t *testing.T) {
	s := recordShape(t, &r1cstest.Chain{N: 10})
	dir := t.TempDir()
	if err := r1cs.WriteShapeFile(filepath.Join(dir, "missing", "s.r1cs"), s); err == nil {
		t.Fatal("write into a missing directory succeeded")
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("failed write left %v", entries)
	}
}

func FuzzDecodeShape(f *testing.F) {
	f.Add(encodeShape(f, recordShape(f, &r1cstest.Chain{N: 3})))
	f.Add(encodeShape(f, recordShape(f, &r1cstest.Random{Seed: 9, Constraints: 8, Inputs: 2, Unused: 1})))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := r1cs.DecodeShape(data)
		if err != nil {
			return
		}
		if err := s.Validate(); err != nil {
			t.Fatalf("decoded shape does not validate: %v", err)
		}
		if !bytes.Equal(encodeShape(t, s), data) {
			t.Fatal("accepted file does not re-encode to itself")
		}
	})
}
