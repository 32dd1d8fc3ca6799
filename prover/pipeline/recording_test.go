package pipeline

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/snarkpipe/snarkpipe/prover"
	"github.com/snarkpipe/snarkpipe/prover/backend"
	"github.com/snarkpipe/snarkpipe/prover/r1cs"
	"github.com/snarkpipe/snarkpipe/prover/srs"
	"github.com/snarkpipe/snarkpipe/prover/srs/srstest"
)

// variant is a circuit whose id stays the same while its code changes (version picks one
// of two gadgets), as after an upgrade of the binary.
type variant struct {
	version int
	y0      uint64
}

func (v *variant) ID() prover.CircuitID { return "test-variant" }

func (v *variant) Synthesize(cs r1cs.ConstraintSystem) error {
	if err := chain(60, v.y0).Synthesize(cs); err != nil {
		return err
	}
	if v.version == 2 { // one more row: x·x = x² on a fresh aux
		var x fr.Element
		x.SetUint64(v.y0 + 1)
		xv := cs.Alloc(x)
		x.Square(&x)
		sq := cs.Alloc(x)
		var a, b, c r1cs.LC
		a.Add(xv)
		b.Add(xv)
		c.Add(sq)
		cs.Enforce("extra", &a, &b, &c)
	}
	return nil
}

type recPipeline struct {
	*Pipeline
	reg *prometheus.Registry
}

func startRecPipeline(t *testing.T, dir string) recPipeline {
	t.Helper()
	cfg := testConfig()
	cfg.RecordingsDir = dir
	reg := prometheus.NewRegistry()
	p, err := New(cfg, Deps{Backends: []backend.Backend{newCPU(t)}, Params: srs.Dev{Cache: srstest.Cache(t)}, Registerer: reg})
	if err != nil {
		t.Fatal(err)
	}
	p.Start()
	t.Cleanup(func() { p.Close() })
	return recPipeline{p, reg}
}

func (p recPipeline) recordings(outcome string) float64 {
	return counterValue(p.metrics.recordings.WithLabelValues(outcome))
}

func counterValue(c prometheus.Counter) float64 {
	var m dto.Metric
	if err := c.Write(&m); err != nil {
		return -1
	}
	return m.GetCounter().GetValue()
}

func recordingFiles(t *testing.T, dir string) []string {
	t.Helper()
	m, _ := filepath.Glob(filepath.Join(dir, "*.r1cs"))
	return m
}

func TestRecordingsPersistReloadAndRecover(t *testing.T) {
	dir := t.TempDir()
	c := chain(150, 3)
	vk := devVK(t, c)
	prove := func(p recPipeline, y0 uint64) {
		t.Helper()
		res := await(t, submit(t, p.Pipeline, JobSpec{Priority: Normal, Circuits: []prover.Circuit{chain(150, y0)}}))
		if err := vk.Verify(&res.Proofs[0], []fr.Element{chainOutput(150, y0)}); err != nil {
			t.Fatal(err)
		}
	}

	p1 := startRecPipeline(t, dir)
	prove(p1, 3)
	if p1.recordings("recorded") != 1 || p1.recordings("hit") != 0 {
		t.Fatalf("first run: recorded %v, hit %v", p1.recordings("recorded"), p1.recordings("hit"))
	}
	p1.Close()
	files := recordingFiles(t, dir)
	if len(files) != 1 {
		t.Fatalf("recordings: %v", files)
	}

	// A restart reuses the recording; it reloads bit-identically to a fresh recording.
	p2 := startRecPipeline(t, dir)
	prove(p2, 4)
	if p2.recordings("hit") != 1 || p2.recordings("recorded") != 0 {
		t.Fatalf("restart: recorded %v, hit %v", p2.recordings("recorded"), p2.recordings("hit"))
	}
	p2.Close()
	fresh := r1cs.NewRecorder(r1cs.Capacity{})
	c.Synthesize(fresh)
	loaded, err := r1cs.ReadShapeFile(files[0])
	if err != nil || !reflect.DeepEqual(loaded, fresh.Finish()) {
		t.Fatalf("reloaded recording differs from a fresh one (%v)", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "hints.json")); err != nil {
		t.Fatalf("capacity hints not persisted: %v", err)
	}

	// A corrupted recording is detected, replaced, and proving still works.
	data, _ := os.ReadFile(files[0])
	data[len(data)/3] ^= 0xff
	os.WriteFile(files[0], data, 0o644)
	p3 := startRecPipeline(t, dir)
	prove(p3, 5)
	if p3.recordings("corrupt") != 1 || p3.recordings("recorded") != 1 {
		t.Fatalf("corrupted: corrupt %v, recorded %v", p3.recordings("corrupt"), p3.recordings("recorded"))
	}
	p3.Close()
	if again, err := r1cs.ReadShapeFile(files[0]); err != nil || !bytes.Equal(again.Digest[:], loaded.Digest[:]) {
		t.Fatalf("re-recorded file: %v", err)
	}
}

func TestChangedCircuitGetsNewRecording(t *testing.T) {
	dir := t.TempDir()
	for _, version := range []int{1, 2} {
		p := startRecPipeline(t, dir)
		c := &variant{version: version, y0: 7}
		res := await(t, submit(t, p.Pipeline, JobSpec{Priority: Normal, Circuits: []prover.Circuit{c}}))
		if p.recordings("recorded") != 1 || p.recordings("hit") != 0 {
			t.Fatalf("version %d: recorded %v, hit %v (a stale recording was reused?)", version, p.recordings("recorded"), p.recordings("hit"))
		}
		vk := devVK(t, c)
		if err := vk.Verify(&res.Proofs[0], []fr.Element{chainOutput(60, 7)}); err != nil {
			t.Fatalf("version %d: %v", version, err)
		}
		p.Close()
	}
	files := recordingFiles(t, dir)
	if len(files) != 2 || !strings.Contains(filepath.Base(files[0]), "test-variant-") {
		t.Fatalf("recordings after a circuit change: %v", files)
	}
}

// A circuit whose witness synthesis allocates differently from its recording is caught
// before proving.
func TestWitnessMismatchIsReported(t *testing.T) {
	p := startPipeline(t, testConfig())
	c := &shifty{}
	j := submit(t, p, JobSpec{Priority: Normal, Circuits: []prover.Circuit{c}})
	if _, err := j.Await(context.Background()); err == nil || !strings.Contains(err.Error(), ErrCircuitChanged.Error()) {
		t.Fatalf("mismatched witness: %v", err)
	}
}

// shifty allocates one more aux variable in witness-only synthesis than when recorded.
type shifty struct{}

func (*shifty) ID() prover.CircuitID { return "test-shifty" }
func (*shifty) Synthesize(cs r1cs.ConstraintSystem) error {
	if err := chain(20, 3).Synthesize(cs); err != nil {
		return err
	}
	if _, ok := cs.(*assignCS); ok {
		cs.Alloc(fr.Element{})
	}
	return nil
}

// Capacity hints persist: a restarted pipeline refuses a job that cannot fit at
// submission, before synthesizing anything.
func TestPersistedHintsRefuseOversizeAfterRestart(t *testing.T) {
	dir := t.TempDir()
	c := chain(90, 3)
	p1 := startRecPipeline(t, dir)
	await(t, submit(t, p1.Pipeline, JobSpec{Priority: Normal, Circuits: []prover.Circuit{c}}))
	p1.Close()

	cfg := testConfig()
	cfg.RecordingsDir = dir
	cfg.HostBudget = 4096
	p2, err := New(cfg, Deps{Backends: []backend.Backend{newCPU(t)}, Params: srs.Dev{Cache: srstest.Cache(t)}})
	if err != nil {
		t.Fatal(err)
	}
	p2.Start()
	defer p2.Close()
	probe := &countingCircuit{Circuit: c}
	if _, err := p2.Submit(context.Background(), JobSpec{Priority: Normal, Circuits: []prover.Circuit{probe}}); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("oversize job after restart: %v", err)
	}
	if probe.calls != 0 {
		t.Fatalf("refusal synthesized the circuit %d times", probe.calls)
	}
}

type countingCircuit struct {
	prover.Circuit
	calls int
}

func (c *countingCircuit) Synthesize(cs r1cs.ConstraintSystem) error {
	c.calls++
	return c.Circuit.Synthesize(cs)
}

// Within one process, a circuit id whose code starts allocating differently fails the job
// that notices (ErrCircuitChanged) and the next job records and loads it afresh; the old
// resident recording is retired.
func TestChangedCircuitInProcessIsReloaded(t *testing.T) {
	p := startRecPipeline(t, t.TempDir())
	v1 := &variant{version: 1, y0: 3}
	await(t, submit(t, p.Pipeline, JobSpec{Priority: Normal, Circuits: []prover.Circuit{v1}}))
	v2 := &variant{version: 2, y0: 3}
	j := submit(t, p.Pipeline, JobSpec{Priority: Normal, Circuits: []prover.Circuit{v2}})
	if _, err := j.Await(context.Background()); !errors.Is(err, ErrCircuitChanged) {
		t.Fatalf("first job after the change: %v", err)
	}
	res := await(t, submit(t, p.Pipeline, JobSpec{Priority: Normal, Circuits: []prover.Circuit{v2}}))
	if err := devVK(t, v2).Verify(&res.Proofs[0], []fr.Element{chainOutput(60, 3)}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the old recording released", func() bool {
		s := p.Status()
		return len(s.Host.Resident) == 1 && len(s.Devices[0].Resident) == 1 && idle(p.Pipeline)
	})
	if s := p.Status(); s.Host.Loads != 2 || s.Devices[0].Loads != 2 {
		t.Fatalf("loads: host %d, device %d", s.Host.Loads, s.Devices[0].Loads)
	}
}
