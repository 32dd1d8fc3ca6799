package srs

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
	"unsafe"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/snarkpipe/snarkpipe/prover"
	"github.com/snarkpipe/snarkpipe/prover/groth16"
	"github.com/snarkpipe/snarkpipe/prover/r1cs"
	"github.com/snarkpipe/snarkpipe/prover/r1cs/r1cstest"
)

func record(t *testing.T, c prover.Circuit) *r1cs.Shape {
	t.Helper()
	rec := r1cs.NewRecorder(r1cs.Capacity{})
	if err := c.Synthesize(rec); err != nil {
		t.Fatal(err)
	}
	return rec.Finish()
}

func TestRecordingsSaveLoadCorrupt(t *testing.T) {
	r := Recordings{Dir: filepath.Join(t.TempDir(), "rec")}
	s := record(t, &r1cstest.Random{Seed: 4, Constraints: 50, Inputs: 2})
	key := RecordingKey{1, 2, 3}
	if _, err := r.Load("c", key); !errors.Is(err, ErrNoRecording) {
		t.Fatalf("empty store: %v", err)
	}
	if err := r.Save("c", key, s); err != nil {
		t.Fatal(err)
	}
	got, err := r.Load("c", key)
	if err != nil || !reflect.DeepEqual(got, s) {
		t.Fatalf("reload: %v", err)
	}
	if _, err := r.Load("c", RecordingKey{9}); !errors.Is(err, ErrNoRecording) {
		t.Fatalf("another key found a recording: %v", err)
	}
	path := filepath.Join(r.Dir, r.FileName("c", key))
	data, _ := os.ReadFile(path)
	data[len(data)/2] ^= 1
	os.WriteFile(path, data, 0o644)
	if _, err := r.Load("c", key); !errors.Is(err, ErrNoRecording) || !errors.Is(err, r1cs.ErrShapeFileCorrupt) {
		t.Fatalf("corrupted recording: %v", err)
	}
	if fileExists(path) {
		t.Fatal("corrupted recording was not removed")
	}
}

func TestRecordingFileNameIsSafeAndVersioned(t *testing.T) {
	name := Recordings{}.FileName("../porep 32g/x", RecordingKey{0xab})
	if strings.ContainsAny(name, `/\ `) || !strings.HasPrefix(name, ".._porep_32g_x-ab00") || !strings.HasSuffix(name, ".v1.r1cs") {
		t.Fatalf("file name %q", name)
	}
}

func TestRecordingsDiskBudgetEvictsLeastRecentlyUsed(t *testing.T) {
	r := Recordings{Dir: t.TempDir()}
	s := record(t, &r1cstest.Chain{N: 200})
	size := r1cs.EncodedShapeLen(s)
	r.MaxBytes = 2*size + size/2 // room for two
	old := time.Now().Add(-time.Hour)
	for i, id := range []prover.CircuitID{"a", "b"} {
		if err := r.Save(id, RecordingKey{}, s); err != nil {
			t.Fatal(err)
		}
		ts := old.Add(time.Duration(i) * time.Minute)
		os.Chtimes(filepath.Join(r.Dir, r.FileName(id, RecordingKey{})), ts, ts)
	}
	if _, err := r.Load("a", RecordingKey{}); err != nil { // a becomes the most recent
		t.Fatal(err)
	}
	if err := r.Save("c", RecordingKey{}, s); err != nil {
		t.Fatal(err)
	}
	for id, want := range map[prover.CircuitID]bool{"a": true, "b": false, "c": true} {
		if got := fileExists(filepath.Join(r.Dir, r.FileName(id, RecordingKey{}))); got != want {
			t.Errorf("recording %s present=%v, want %v", id, got, want)
		}
	}
}

func TestDevSourceAndParamsBytes(t *testing.T) {
	c := &r1cstest.Random{Seed: 8, Constraints: 60, Inputs: 3, Unused: 5}
	s := record(t, c)
	src := Dev{Cache: DirCache{Dir: t.TempDir()}}
	p, err := src.Params(context.Background(), c.ID(), s)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	g1 := int64(unsafe.Sizeof(bls.G1Affine{}))
	g2 := int64(unsafe.Sizeof(bls.G2Affine{}))
	actual := g1*int64(len(p.VK.IC)+len(p.H)+len(p.L)+len(p.A)+len(p.BG1)) + g2*int64(len(p.BG2))
	if est := ParamsBytes(s.Counts()); est < actual || est > actual+1024 {
		t.Fatalf("ParamsBytes %d, vectors hold %d", est, actual)
	}
	other := record(t, &r1cstest.Chain{N: 10})
	vk, err := os.Create(VKPath(filepath.Join(src.Cache.Dir, DevParamsName(s))))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.VK.WriteTo(vk); err != nil || vk.Close() != nil {
		t.Fatal(err)
	}
	files := Files{Dir: src.Cache.Dir, Names: map[prover.CircuitID]string{"x": DevParamsName(s)}, Options: groth16.ReadOptions{AllowDev: true}}
	if _, err := files.Params(context.Background(), "x", other); !errors.Is(err, groth16.ErrShape) {
		t.Fatalf("params of another shape: %v", err)
	}
	if _, err := files.Params(context.Background(), "y", s); err == nil {
		t.Fatal("unknown circuit id accepted")
	}
	q, err := files.Params(context.Background(), "x", s)
	if err != nil {
		t.Fatal(err)
	}
	q.Close()
}

// TestParseRecordingKey: String and ParseRecordingKey round-trip; other lengths and
// non-hex digits are refused.
func TestParseRecordingKey(t *testing.T) {
	var k RecordingKey
	for i := range k {
		k[i] = byte(i*37 + 5)
	}
	got, err := ParseRecordingKey(k.String())
	if err != nil || got != k {
		t.Fatalf("round trip: %v %v, want %v", got, err, k)
	}
	for _, bad := range []string{"", k.String()[:30], k.String() + "00", "zz" + k.String()[2:]} {
		if _, err := ParseRecordingKey(bad); err == nil {
			t.Errorf("ParseRecordingKey(%q) accepted", bad)
		}
	}
}
