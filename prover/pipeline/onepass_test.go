package pipeline

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/snarkpipe/snarkpipe/prover"
	"github.com/snarkpipe/snarkpipe/prover/r1cs"
	"github.com/snarkpipe/snarkpipe/prover/r1cs/r1cstest"
	"github.com/snarkpipe/snarkpipe/prover/srs"
)

// keyCircuits are the circuits the one-pass key is compared on: random circuits (repeated
// and cancelling terms, constants, empty sides, inputs anywhere, C-only aux), the squaring
// chain, both versions of a changing gadget, and nil sides inside namespaces. The Filecoin
// circuits live in sealer, which prover may not import; the key depends only on the
// stream of calls a circuit makes, so equality on these generic streams covers them.
func keyCircuits() []prover.Circuit {
	return []prover.Circuit{
		&r1cstest.Random{Seed: 1, Constraints: 3000, Inputs: 7, Unused: 40},
		&r1cstest.Random{Seed: 2, Constraints: 500, Inputs: 1},
		&r1cstest.Random{Seed: 3, Constraints: 1200, Unused: 1200},
		&r1cstest.Chain{N: 257, Y0: 5},
		&variant{version: 1, y0: 9},
		&variant{version: 2, y0: 9},
		nilSides{},
	}
}

// nilSides enforces rows with nil sides, reuses (after Reset) one LC, and uses namespaces.
type nilSides struct{}

func (nilSides) ID() prover.CircuitID { return "test-nil-sides" }

func (nilSides) Synthesize(cs r1cs.ConstraintSystem) error {
	var x fr.Element
	x.SetUint64(0)
	cs.Push("zero")
	v := cs.Alloc(x)
	var lc r1cs.LC
	lc.Add(v)
	cs.Enforce("v·1 = 0", &lc, nil, nil)
	cs.Pop()
	in := cs.AllocInput(x)
	lc.Reset()
	lc.Add(in)
	lc.Add(in)
	cs.Enforce("0 = in+in", nil, nil, &lc)
	return nil
}

// probeKey is the key of today's hash-only probe (the two-pass path's first synthesis).
func probeKey(t testing.TB, c prover.Circuit) srs.RecordingKey {
	t.Helper()
	k := newKeyCS()
	if err := c.Synthesize(k); err != nil {
		t.Fatal(err)
	}
	return k.key()
}

func freshRecording(t testing.TB, c prover.Circuit) *r1cs.Shape {
	t.Helper()
	rec := r1cs.NewRecorder(r1cs.Capacity{})
	if err := c.Synthesize(rec); err != nil {
		t.Fatal(err)
	}
	return rec.Finish()
}

// The one-pass synthesis gives the key of the hash-only probe, bit for bit, and the
// recording of a recorder alone: recordings made either way are found by the other.
func TestOnePassKeyEqualsProbeKey(t *testing.T) {
	for _, c := range keyCircuits() {
		cs := newCircuits(nil, openHints(""))
		key, shape, err := cs.record(c)
		if err != nil {
			t.Fatalf("%s: %v", c.ID(), err)
		}
		if want := probeKey(t, c); key != want {
			t.Errorf("%s: one-pass key %s, probe key %s", c.ID(), key, want)
		}
		if !reflect.DeepEqual(shape, freshRecording(t, c)) {
			t.Errorf("%s: one-pass recording differs from a recorder's", c.ID())
		}
	}
}

// recorderFirstCS is the tee in the wrong order: the hasher sees the terms after the
// recorder merged them. It exists to show that the key test above can fail.
type recorderFirstCS struct{ recordingCS }

func (r recorderFirstCS) Enforce(ann string, a, b, c *r1cs.LC) {
	r.rec.Enforce(ann, a, b, c)
	r.key.Enforce(ann, a, b, c)
}

func TestKeyOfMergedTermsDiffers(t *testing.T) {
	c := &r1cstest.Random{Seed: 1, Constraints: 3000, Inputs: 7, Unused: 40}
	k := newKeyCS()
	if err := c.Synthesize(recorderFirstCS{recordingCS{key: k, rec: r1cs.NewRecorder(r1cs.Capacity{})}}); err != nil {
		t.Fatal(err)
	}
	if k.key() == probeKey(t, c) {
		t.Fatal("a key over merged terms equals the probe key: the key test cannot tell the tee's order")
	}
}

// A cold start (no recording of the id on disk) synthesizes once: prepare learns the key
// and records, the file is saved under the probe's key, and the load takes the kept
// recording. A restart finds the file: one hash-only synthesis, then a disk load.
func TestColdStartSynthesizesOnce(t *testing.T) {
	dir := t.TempDir()
	c := &countingCircuit{Circuit: &r1cstest.Random{Seed: 4, Constraints: 800, Inputs: 3, Unused: 10}}
	want, wantShape := probeKey(t, c.Circuit), freshRecording(t, c.Circuit)
	store := &srs.Recordings{Dir: dir}

	cold := newCircuits(store, openHints(dir))
	h, err := cold.prepare(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	if c.calls != 1 || h.Key != want.String() {
		t.Fatalf("cold prepare: %d syntheses, hint key %s, want 1 and %s", c.calls, h.Key, want)
	}
	if _, err := os.Stat(filepath.Join(dir, store.FileName(c.ID(), want))); err != nil {
		t.Fatalf("recording not saved under the probe key: %v", err)
	}
	key, shape, err := cold.shapeFor(c)
	if err != nil || key != want || !reflect.DeepEqual(shape, wantShape) || c.calls != 1 {
		t.Fatalf("cold load: key %s, %d syntheses, same recording %v (%v)", key, c.calls, reflect.DeepEqual(shape, wantShape), err)
	}

	c.calls = 0
	warm := newCircuits(store, openHints(dir))
	if h, err := warm.prepare(context.Background(), c); err != nil || h.Key != want.String() || c.calls != 1 {
		t.Fatalf("restart prepare: %d syntheses, hint key %s (%v)", c.calls, h.Key, err)
	}
	key, shape, err = warm.shapeFor(c)
	if err != nil || key != want || !reflect.DeepEqual(shape, wantShape) || c.calls != 1 {
		t.Fatalf("restart load: key %s, %d syntheses (%v)", key, c.calls, err)
	}
}

// Without a store (recordings in memory only) the first prepare also synthesizes once.
func TestInMemorySynthesizesOnce(t *testing.T) {
	c := &countingCircuit{Circuit: &r1cstest.Chain{N: 100}}
	cs := newCircuits(nil, openHints(""))
	if _, err := cs.prepare(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	if _, _, err := cs.shapeFor(c); err != nil || c.calls != 1 {
		t.Fatalf("%d syntheses (%v)", c.calls, err)
	}
}

// A recording of the id under another key (older circuit code) keeps the two-pass path:
// the probe cannot know the file is stale before hashing. The new recording is saved
// beside it.
func TestStaleRecordingOfIdTakesTwoPasses(t *testing.T) {
	dir := t.TempDir()
	store := &srs.Recordings{Dir: dir}
	old, cur := &variant{version: 1, y0: 2}, &countingCircuit{Circuit: &variant{version: 2, y0: 2}}
	if err := store.Save(old.ID(), probeKey(t, old), freshRecording(t, old)); err != nil {
		t.Fatal(err)
	}
	cs := newCircuits(store, openHints(dir))
	if _, err := cs.prepare(context.Background(), cur); err != nil {
		t.Fatal(err)
	}
	if cur.calls != 2 {
		t.Fatalf("%d syntheses with a stale recording on disk, want 2 (probe, record)", cur.calls)
	}
	if _, err := os.Stat(filepath.Join(dir, store.FileName(cur.ID(), probeKey(t, cur.Circuit)))); err != nil {
		t.Fatalf("new recording not saved: %v", err)
	}
	if n := len(recordingFiles(t, dir)); n != 2 {
		t.Fatalf("%d recordings, want the stale one and the new one", n)
	}
}

// Only a file of this id, some key and the current shape-file version counts as a
// possible recording.
func TestStoreMayHold(t *testing.T) {
	dir := t.TempDir()
	store := srs.Recordings{Dir: dir}
	cs := newCircuits(&store, openHints(dir))
	id := prover.CircuitID("a")
	var key srs.RecordingKey
	key[3] = 0x5c
	name := store.FileName(id, key)
	others := []string{
		store.FileName("a-b", key),               // another id sharing the prefix
		store.FileName("b", key),                 // another id
		name + ".tmp12345",                       // a save in progress or abandoned
		name[:len(name)-len(".r1cs")] + "x.r1cs", // another version suffix
		"hints.json",
	}
	if cs.storeMayHold(id) {
		t.Fatal("empty directory holds a recording")
	}
	if (&circuits{store: &srs.Recordings{Dir: filepath.Join(dir, "missing")}}).storeMayHold(id) {
		t.Fatal("missing directory holds a recording")
	}
	for _, n := range others {
		if err := os.WriteFile(filepath.Join(dir, n), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if cs.storeMayHold(id) {
		t.Fatalf("files of other ids, temporaries or versions counted as a recording of %s", id)
	}
	if err := os.WriteFile(filepath.Join(dir, name), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if !cs.storeMayHold(id) {
		t.Fatalf("%s not counted as a recording of %s", name, id)
	}
}

// A recording file that appeared meanwhile (another process) is not rewritten.
func TestSaveIfAbsentKeepsExistingFile(t *testing.T) {
	dir := t.TempDir()
	store := &srs.Recordings{Dir: dir}
	cs := newCircuits(store, openHints(dir))
	c := &r1cstest.Chain{N: 10}
	key, shape := probeKey(t, c), freshRecording(t, c)
	path := filepath.Join(dir, store.FileName(c.ID(), key))
	if err := os.WriteFile(path, []byte("someone else's"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := cs.saveIfAbsent(c.ID(), key, shape); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(path); !bytes.Equal(data, []byte("someone else's")) {
		t.Fatal("existing recording file rewritten")
	}
	os.Remove(path)
	if err := cs.saveIfAbsent(c.ID(), key, shape); err != nil {
		t.Fatal(err)
	}
	if got, err := store.Load(c.ID(), key); err != nil || !reflect.DeepEqual(got, shape) {
		t.Fatalf("absent recording not saved (%v)", err)
	}
}
