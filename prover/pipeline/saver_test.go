package pipeline

import (
	"errors"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/snarkpipe/snarkpipe/prover"
	"github.com/snarkpipe/snarkpipe/prover/r1cs"
	"github.com/snarkpipe/snarkpipe/prover/srs"
)

// heldSave replaces p's recording writer by one that reports each start on started and
// writes only once release is called. A test that fails first releases it at cleanup
// (before the pipeline's Close, which would wait for the save).
func heldSave(t *testing.T, p recPipeline) (started chan prover.CircuitID, release func()) {
	started = make(chan prover.CircuitID, 8)
	held := make(chan struct{})
	var once sync.Once
	release = func() { once.Do(func() { close(held) }) }
	t.Cleanup(release)
	p.saver.write = func(id prover.CircuitID, key srs.RecordingKey, s *r1cs.Shape) error {
		started <- id
		<-held
		return p.circuits.saveIfAbsent(id, key, s)
	}
	return started, release
}

func (p recPipeline) saves(outcome string) float64 {
	return counterValue(p.metrics.recordingSaves.WithLabelValues(outcome))
}

func proveChain(t *testing.T, p recPipeline, y0 uint64) {
	t.Helper()
	res := await(t, submit(t, p.Pipeline, JobSpec{Priority: Normal, Circuits: []prover.Circuit{chain(150, y0)}}))
	vk := devVK(t, chain(150, y0))
	if err := vk.Verify(&res.Proofs[0], []fr.Element{chainOutput(150, y0)}); err != nil {
		t.Fatal(err)
	}
}

func waitSaveStarted(t *testing.T, started <-chan prover.CircuitID) {
	t.Helper()
	select {
	case <-started:
	case <-time.After(30 * time.Second):
		t.Fatal("the recording's save never started")
	}
}

// A first start proves while its new recording is still being saved; Close waits for the
// save, and the next process loads what it wrote.
func TestSetupDoesNotWaitForSave(t *testing.T) {
	dir := t.TempDir()
	p := startRecPipeline(t, dir)
	started, release := heldSave(t, p)
	proveChain(t, p, 3)
	waitSaveStarted(t, started)
	if files := recordingFiles(t, dir); len(files) != 0 || p.saves("ok") != 0 {
		t.Fatalf("save held, yet files %v, %v saves", files, p.saves("ok"))
	}

	closed := make(chan struct{})
	go func() { p.Close(); close(closed) }()
	select {
	case <-closed:
		t.Fatal("Close returned while a save was pending")
	case <-time.After(100 * time.Millisecond):
	}
	release()
	select {
	case <-closed:
	case <-time.After(30 * time.Second):
		t.Fatal("Close did not return after the save")
	}
	if files := recordingFiles(t, dir); len(files) != 1 || p.saves("ok") != 1 || p.saves("failed") != 0 {
		t.Fatalf("after Close: files %v, saves ok %v failed %v", files, p.saves("ok"), p.saves("failed"))
	}

	next := startRecPipeline(t, dir)
	proveChain(t, next, 4)
	if next.recordings("hit") != 1 || next.recordings("recorded") != 0 || next.saves("ok") != 0 {
		t.Fatalf("restart: hit %v, recorded %v, saves %v", next.recordings("hit"), next.recordings("recorded"), next.saves("ok"))
	}
}

// A disk that refuses the recording fails no job; the failure is counted, the recording
// stays resident, and the next process records the circuit again and saves it.
func TestFailedSaveFailsNoJob(t *testing.T) {
	dir := t.TempDir()
	p := startRecPipeline(t, dir)
	var attempts atomic.Int32
	p.saver.write = func(prover.CircuitID, srs.RecordingKey, *r1cs.Shape) error {
		attempts.Add(1)
		return errors.New("no space left on device")
	}
	proveChain(t, p, 3)
	proveChain(t, p, 5) // the resident recording serves the next job
	p.Close()
	if attempts.Load() != 1 || p.saves("failed") != 1 || p.saves("ok") != 0 || p.recordings("recorded") != 1 {
		t.Fatalf("attempts %d, saves failed %v ok %v, recorded %v", attempts.Load(), p.saves("failed"), p.saves("ok"), p.recordings("recorded"))
	}
	if files := recordingFiles(t, dir); len(files) != 0 {
		t.Fatalf("a failed save left %v", files)
	}

	next := startRecPipeline(t, dir)
	proveChain(t, next, 4)
	next.Close()
	if next.recordings("recorded") != 1 || next.saves("ok") != 1 || len(recordingFiles(t, dir)) != 1 {
		t.Fatalf("next process: recorded %v, saves %v, files %v", next.recordings("recorded"), next.saves("ok"), recordingFiles(t, dir))
	}
}

// A circuit evicted while its recording is being saved keeps its host bytes reserved
// until the save is done, and the save completes from the recording it holds.
func TestEvictionWaitsForSave(t *testing.T) {
	dir := t.TempDir()
	p := startRecPipeline(t, dir)
	started, release := heldSave(t, p)
	proveChain(t, p, 3)
	waitSaveStarted(t, started)
	waitFor(t, "idle pipeline", func() bool { return idle(p.Pipeline) })
	resident := p.Status().Host.Used
	if ok, err := p.Evict(chain(150, 3).ID()); !ok || err != nil {
		t.Fatalf("evict: %v %v", ok, err)
	}
	time.Sleep(50 * time.Millisecond) // the freer has had time to release, if it did not wait
	if used := p.Status().Host.Used; used != resident {
		t.Fatalf("host used %d while the evicted recording is being saved, want %d", used, resident)
	}
	release()
	waitFor(t, "the eviction's release", func() bool { return p.Status().Host.Used < resident })
	if files := recordingFiles(t, dir); len(files) != 1 || p.saves("ok") != 1 {
		t.Fatalf("evicted circuit's save: files %v, saves %v", files, p.saves("ok"))
	}
	if _, err := r1cs.ReadShapeFile(recordingFiles(t, dir)[0]); err != nil {
		t.Fatal(err)
	}
}

// Without a recordings directory nothing is saved.
func TestInMemoryRecordingIsNotSaved(t *testing.T) {
	p := startRecPipeline(t, "")
	p.saver.write = func(prover.CircuitID, srs.RecordingKey, *r1cs.Shape) error {
		t.Error("save without a recordings directory")
		return nil
	}
	proveChain(t, p, 3)
	p.Close()
	if p.saves("ok")+p.saves("failed") != 0 {
		t.Fatal("a save was counted")
	}
}

// Saves submitted after Close run on their callers; Close is idempotent.
func TestSaverAfterClose(t *testing.T) {
	dir := t.TempDir()
	p := startRecPipeline(t, dir)
	p.Close()
	p.saver.Close()
	c := chain(10, 3)
	done := p.saver.submit(c.ID(), probeKey(t, c), freshRecording(t, c))
	select {
	case <-done:
	default:
		t.Fatal("a save submitted after Close is still pending")
	}
	if _, err := os.Stat(filepath.Join(dir, (&srs.Recordings{Dir: dir}).FileName(c.ID(), probeKey(t, c)))); err != nil {
		t.Fatal(err)
	}
}

// A recordings directory that cannot be read or written at all (here: a regular file in
// its place) fails no job: the lookup counts as unreadable, and the recording and its
// hint stay in memory.
func TestUnwritableRecordingsDirFailsNoJob(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "recordings")
	if err := os.WriteFile(dir, []byte("not a directory"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := startRecPipeline(t, dir)
	proveChain(t, p, 3)
	proveChain(t, p, 4)
	p.Close()
	if p.saves("failed") != 1 || p.saves("ok") != 0 || p.recordings("recorded") != 1 || p.recordings("unreadable") != 1 {
		t.Fatalf("saves failed %v ok %v, recorded %v, unreadable %v", p.saves("failed"), p.saves("ok"), p.recordings("recorded"), p.recordings("unreadable"))
	}
}

// A writer that panics counts as a failed save; the next save still runs.
func TestSaverContainsPanic(t *testing.T) {
	dir := t.TempDir()
	p := startRecPipeline(t, dir)
	var calls atomic.Int32
	p.saver.write = func(id prover.CircuitID, key srs.RecordingKey, s *r1cs.Shape) error {
		if calls.Add(1) == 1 {
			panic("writer bug")
		}
		return p.circuits.saveIfAbsent(id, key, s)
	}
	c := chain(10, 3)
	<-p.saver.submit(c.ID(), probeKey(t, c), freshRecording(t, c))
	<-p.saver.submit(c.ID(), probeKey(t, c), freshRecording(t, c))
	if p.saves("failed") != 1 || p.saves("ok") != 1 || len(recordingFiles(t, dir)) != 1 {
		t.Fatalf("saves failed %v ok %v, files %v", p.saves("failed"), p.saves("ok"), recordingFiles(t, dir))
	}
}
