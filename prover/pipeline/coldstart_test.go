package pipeline

import (
	"bytes"
	"context"
	"encoding/json"
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
		&partsCircuit{n: 23, aux: 9, fail: -1, panicAt: -1, growAt: -1}, // recorded in parts (recordParts)
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
// recording of a recorder alone, whatever its buffers' capacity: recordings made either
// way are found by the other.
func TestOnePassKeyEqualsProbeKey(t *testing.T) {
	for _, c := range keyCircuits() {
		want, fresh := probeKey(t, c), freshRecording(t, c)
		for _, capacity := range []r1cs.Capacity{{}, probeCapacity(t, c), hintOf(want, fresh).capacity()} {
			cs := newCircuits(nil, openHints(""), "")
			key, shape, err := cs.record(c, capacity)
			if err != nil {
				t.Fatalf("%s: %v", c.ID(), err)
			}
			if key != want {
				t.Errorf("%s, capacity %+v: one-pass key %s, probe key %s", c.ID(), capacity, key, want)
			}
			if !reflect.DeepEqual(shape, fresh) {
				t.Errorf("%s, capacity %+v: one-pass recording differs from a recorder's", c.ID(), capacity)
			}
		}
	}
}

func probeCapacity(t testing.TB, c prover.Circuit) r1cs.Capacity {
	t.Helper()
	k := newKeyCS()
	if err := c.Synthesize(k); err != nil {
		t.Fatal(err)
	}
	return k.capacity()
}

// The probe's capacity is the recording's size exactly: its buffers never grow, and
// none is left with spare capacity (the probe counts terms merged, as the recorder
// stores them; the random circuits repeat and cancel terms).
func TestProbeCapacityHoldsRecording(t *testing.T) {
	for _, c := range keyCircuits() {
		capacity := probeCapacity(t, c)
		_, s, err := recordInto(c, r1cs.NewRecorder(capacity))
		if err != nil {
			t.Fatal(err)
		}
		for i, m := range []*r1cs.Matrix{&s.A, &s.B, &s.C} {
			// (A count of zero leaves the recorder its default, so only non-zero counts
			// must be the capacity exactly.)
			if n := capacity.MatrixNonZeros[i]; m.NonZeros() > n || n > 0 && (cap(m.Col) != n || cap(m.Coeff) != n) {
				t.Errorf("%s matrix %d: %d terms, capacity %d/%d, probe counted %d", c.ID(), i, m.NonZeros(), cap(m.Col), cap(m.Coeff), n)
			}
			if rows := s.NumConstraints + s.NumInputs + 1; cap(m.RowPtr) != rows {
				t.Errorf("%s matrix %d: row pointers grew to %d, want %d", c.ID(), i, cap(m.RowPtr), rows)
			}
		}
		if nnz := [3]int{s.A.NonZeros(), s.B.NonZeros(), s.C.NonZeros()}; capacity.MatrixNonZeros != nnz {
			t.Errorf("%s: probe counted %v, recording has %v", c.ID(), capacity.MatrixNonZeros, nnz)
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

// setUp prepares c in a fresh circuits over store (a restarted process) and takes the
// recording its load would take; it returns the syntheses that cost.
func setUp(t testing.TB, store *srs.Recordings, c *countingCircuit) (srs.RecordingKey, *r1cs.Shape, int) {
	t.Helper()
	return setUpCode(t, store, c, "")
}

// setUpCode is setUp in a process whose Deps.CodeID is codeID.
func setUpCode(t testing.TB, store *srs.Recordings, c *countingCircuit, codeID string) (srs.RecordingKey, *r1cs.Shape, int) {
	t.Helper()
	dir := ""
	if store != nil {
		dir = store.Dir
	}
	cs := newCircuits(store, openHints(dir), codeID)
	c.calls = 0
	h, err := cs.prepare(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	key, held, err := cs.shapeFor(c)
	if err != nil || h.Key != key.String() {
		t.Fatalf("load: key %s, hint key %s (%v)", key, h.Key, err)
	}
	if held.unsaved { // what the load's background save does
		if err := cs.saveIfAbsent(c.ID(), key, held.shape); err != nil {
			t.Fatal(err)
		}
	}
	return key, held.shape, c.calls
}

// Setup of a circuit id in each state of the store: the number of syntheses, the key (the
// probe's) and the recording (a recorder's) it ends with, and the file it leaves.
func TestSetupPaths(t *testing.T) {
	dir := t.TempDir()
	store := &srs.Recordings{Dir: dir}
	c := &countingCircuit{Circuit: &r1cstest.Random{Seed: 4, Constraints: 800, Inputs: 3, Unused: 10}}
	want, wantShape := probeKey(t, c.Circuit), freshRecording(t, c.Circuit)
	file := filepath.Join(dir, store.FileName(c.ID(), want))
	check := func(state string, wantCalls int) {
		t.Helper()
		key, shape, calls := setUp(t, store, c)
		if key != want || !reflect.DeepEqual(shape, wantShape) || calls != wantCalls {
			t.Errorf("%s: key %s, same recording %v, %d syntheses; want %s, true, %d", state, key, reflect.DeepEqual(shape, wantShape), calls, want, wantCalls)
		}
		if _, err := os.Stat(file); err != nil {
			t.Errorf("%s: recording not saved under the probe key: %v", state, err)
		}
	}
	// Nothing known: a hash-only synthesis sizes the recording's buffers, then it records.
	check("first start", 2)
	// The recording is on disk: hash, then load.
	check("restart", 1)
	// A hint but no recording (deleted or trimmed): one synthesis records and hashes.
	if err := os.Remove(file); err != nil {
		t.Fatal(err)
	}
	check("hint without recording", 1)
	// The hint persisted by a binary without per-matrix counts still sizes the recording.
	stripMatrixNonZeros(t, dir)
	os.Remove(file)
	check("old hint without recording", 1)
}

// A restart of the same code (Deps.CodeID) trusts the key its earlier probe persisted
// and only reads the recording: no synthesis at all. Another code probes once (and then
// is trusted in turn); no code id always probes. Every path ends with the probe's key
// and the same recording.
func TestSameCodeSkipsProbe(t *testing.T) {
	dir := t.TempDir()
	store := &srs.Recordings{Dir: dir}
	c := &countingCircuit{Circuit: &r1cstest.Random{Seed: 6, Constraints: 500, Inputs: 2, Unused: 4}}
	want, wantShape := probeKey(t, c.Circuit), freshRecording(t, c.Circuit)
	for _, step := range []struct {
		state, code string
		calls       int
	}{
		{"first start of code A", "A", 2},
		{"restart of code A", "A", 0},
		{"first start of code B", "B", 1},
		{"restart of code B", "B", 0},
		{"restart without a code id", "", 1},
		{"code B again", "B", 0},
	} {
		key, shape, calls := setUpCode(t, store, c, step.code)
		if key != want || !reflect.DeepEqual(shape, wantShape) || calls != step.calls {
			t.Errorf("%s: key %s, same recording %v, %d syntheses; want %s, true, %d", step.state, key, reflect.DeepEqual(shape, wantShape), calls, want, step.calls)
		}
	}
	// A distrusted circuit (forget: its recording did not match) is probed again, even
	// by the code that probed it.
	cs := newCircuits(store, openHints(dir), "B")
	c.calls = 0
	if _, err := cs.prepare(context.Background(), c); err != nil || c.calls != 0 {
		t.Fatalf("code B before forget: %d syntheses (%v), want 0", c.calls, err)
	}
	cs.forget(c.ID())
	if _, err := cs.prepare(context.Background(), c); err != nil || c.calls != 1 {
		t.Fatalf("code B after forget: %d syntheses (%v), want the probe", c.calls, err)
	}
	// The recording deleted: the trusted hint's path records it again in one synthesis.
	if err := os.Remove(filepath.Join(dir, store.FileName(c.ID(), want))); err != nil {
		t.Fatal(err)
	}
	if key, _, calls := setUpCode(t, store, c, "B"); key != want || calls != 1 {
		t.Errorf("code B, recording deleted: key %s, %d syntheses; want %s, 1", key, calls, want)
	}
}

// stripMatrixNonZeros rewrites hints.json as a binary before MatrixNonZeros wrote it.
func stripMatrixNonZeros(t *testing.T, dir string) {
	t.Helper()
	path := filepath.Join(dir, "hints.json")
	var m map[string]map[string]any
	data, err := os.ReadFile(path)
	if err == nil {
		err = json.Unmarshal(data, &m)
	}
	if err != nil {
		t.Fatalf("hints.json: %v", err)
	}
	for _, h := range m {
		delete(h, "MatrixNonZeros")
	}
	if data, err = json.Marshal(m); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// Without a store (recordings in memory only) the first setup hashes then records; once
// the id has a hint (a later probe, after a recording was distrusted), one synthesis.
func TestInMemorySetup(t *testing.T) {
	c := &countingCircuit{Circuit: &r1cstest.Chain{N: 100}}
	cs := newCircuits(nil, openHints(""), "")
	for i, want := range []int{2, 1} {
		c.calls = 0
		if _, err := cs.prepare(context.Background(), c); err != nil {
			t.Fatal(err)
		}
		if _, _, err := cs.shapeFor(c); err != nil || c.calls != want {
			t.Fatalf("setup %d: %d syntheses, want %d (%v)", i, c.calls, want, err)
		}
		cs.forget(c.ID())
	}
}

// A recording of the id under another key (older circuit code) keeps the hash-first
// path: the probe cannot know the file is stale before hashing. The new recording is
// saved beside it.
func TestStaleRecordingOfIdTakesTwoPasses(t *testing.T) {
	dir := t.TempDir()
	store := &srs.Recordings{Dir: dir}
	setUp(t, store, &countingCircuit{Circuit: &variant{version: 1, y0: 2}})
	cur := &countingCircuit{Circuit: &variant{version: 2, y0: 2}}
	if key, _, calls := setUp(t, store, cur); calls != 2 || key != probeKey(t, cur.Circuit) {
		t.Fatalf("%d syntheses with a stale recording on disk, want 2 (probe, record); key %s", calls, key)
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
	cs := newCircuits(&store, openHints(dir), "")
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
	cs := newCircuits(store, openHints(dir), "")
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

// Any circuit id (odd characters, long ids the store truncates) finds a recording saved
// under its name and any key, and none in an empty directory; nothing panics.
func FuzzStoreMayHold(f *testing.F) {
	f.Add("test-chain-100", []byte{1, 2, 3})
	f.Add("", []byte{})
	f.Add("a/b c-ffffffffffffffffffffffffffffffff.v1.r1cs", []byte{0xff})
	f.Add(string(make([]byte, 150)), []byte{0})
	f.Fuzz(func(t *testing.T, id string, keyBytes []byte) {
		dir := t.TempDir()
		store := srs.Recordings{Dir: dir}
		cs := &circuits{store: &store}
		var key srs.RecordingKey
		copy(key[:], keyBytes)
		if cs.storeMayHold(prover.CircuitID(id)) {
			t.Fatal("empty directory holds a recording")
		}
		if err := os.WriteFile(filepath.Join(dir, store.FileName(prover.CircuitID(id), key)), nil, 0o644); err != nil {
			t.Skip(err) // a name the file system refuses
		}
		if !cs.storeMayHold(prover.CircuitID(id)) {
			t.Fatalf("recording of %q under %s not found", id, key)
		}
	})
}
