package gpu

import (
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/snarkpipe/snarkpipe/prover/backend"
	"github.com/snarkpipe/snarkpipe/prover/r1cs/r1cstest"
)

// proveErr is poolCircuit.prove for other goroutines: the error instead of t.Fatal.
func (pc *poolCircuit) proveErr() error {
	got, _, err := pc.rc.Prove(pc.w.Inputs, pc.w.Aux, &pc.rs)
	if err == nil && got.Bytes() != pc.want {
		err = errors.New("device proof differs from the CPU backend's for the same (r, s)")
	}
	return err
}

// meetHook makes every resident proof wait, inside the backend, until want proofs are
// inside at once or wait has passed; it reports whether they met and the most inside.
type meetHook struct {
	want   int32
	wait   time.Duration
	inside atomic.Int32
	most   atomic.Int32
	met    chan struct{}
	once   sync.Once
}

func newMeetHook(want int, wait time.Duration) *meetHook {
	return &meetHook{want: int32(want), wait: wait, met: make(chan struct{})}
}

func (h *meetHook) held() {
	n := h.inside.Add(1)
	defer h.inside.Add(-1)
	for m := h.most.Load(); n > m && !h.most.CompareAndSwap(m, n); m = h.most.Load() {
	}
	if n >= h.want {
		h.once.Do(func() { close(h.met) })
	}
	select {
	case <-h.met:
	case <-time.After(h.wait):
	}
}

// proveAll runs n proofs of pc at once and returns the first error.
func proveAll(pcs ...*poolCircuit) error {
	errs := make([]error, len(pcs))
	var wg sync.WaitGroup
	for i, pc := range pcs {
		wg.Go(func() { errs[i] = pc.proveErr() })
	}
	wg.Wait()
	return errors.Join(errs...)
}

// TestProofStreamsRunProofsAtOnce: with two proof streams, two resident proofs of one
// shape are inside the backend at the same time, each on its own buffer set (the pool
// then holds two), and both equal the CPU backend's proof; proofs of a second shape run
// beside them too.
func TestProofStreamsRunProofsAtOnce(t *testing.T) {
	b := testBackendWith(t, Config{ProofStreams: 2})
	if b.ProofStreams() != 2 {
		t.Fatalf("ProofStreams() = %d, want 2", b.ProofStreams())
	}
	pc := newPoolCircuit(t, b, r1cstest.Random{Seed: 71, Constraints: 200, Inputs: 3})
	other := newPoolCircuit(t, b, r1cstest.Random{Seed: 72, Constraints: 90, Inputs: 2})
	h := newMeetHook(2, 30*time.Second)
	b.hooks.proofHeld = h.held
	defer func() { b.hooks.proofHeld = nil }()
	if err := proveAll(pc, pc); err != nil {
		t.Fatal(err)
	}
	select {
	case <-h.met:
	default:
		t.Fatalf("two proofs on two streams were never inside at once (most %d)", h.most.Load())
	}
	set := ProofPoolBytes(pc.shape.Sizes)
	if len(pc.dev.pool.idle) != 2 || pc.dev.pool.sets != 2 || b.PooledBytes() != 2*set {
		t.Fatalf("after two proofs at once: %d idle of %d sets, %d pooled bytes; want 2 of 2, %d", len(pc.dev.pool.idle), pc.dev.pool.sets, b.PooledBytes(), 2*set)
	}
	h2 := newMeetHook(2, 30*time.Second)
	b.hooks.proofHeld = h2.held
	if err := proveAll(pc, other, pc, other); err != nil {
		t.Fatal(err)
	}
	if h2.most.Load() != 2 {
		t.Fatalf("four proofs on two streams: at most %d inside at once, want 2", h2.most.Load())
	}
	if pc.dev.pool.sets != 2 {
		t.Fatalf("the pool grew to %d sets with two streams", pc.dev.pool.sets)
	}
	want := 2*set + other.dev.poolBytes.Load()
	if freed, err := b.TrimIdle(); err != nil || freed != want {
		t.Fatalf("TrimIdle freed %d bytes (%v), want every idle set: %d", freed, err, want)
	}
	if b.PooledBytes() != 0 || pc.dev.pool.sets != 0 {
		t.Fatalf("after TrimIdle with no proof running: %d pooled bytes, %d sets", b.PooledBytes(), pc.dev.pool.sets)
	}
}

// TestProofStreamsDefaultSerialises: with the default single stream, proofs never
// overlap inside the backend (the device lock of one stream).
func TestProofStreamsDefaultSerialises(t *testing.T) {
	b := testBackend(t)
	if b.ProofStreams() != 1 {
		t.Fatalf("ProofStreams() = %d, want 1 by default", b.ProofStreams())
	}
	pc := newPoolCircuit(t, b, r1cstest.Random{Seed: 73, Constraints: 80, Inputs: 2})
	h := newMeetHook(2, 300*time.Millisecond)
	b.hooks.proofHeld = h.held
	defer func() { b.hooks.proofHeld = nil }()
	if err := proveAll(pc, pc, pc); err != nil {
		t.Fatal(err)
	}
	if h.most.Load() != 1 || pc.dev.pool.sets != 1 {
		t.Fatalf("one stream: %d proofs inside at once, %d buffer sets; want 1 and 1", h.most.Load(), pc.dev.pool.sets)
	}
}

// TestShapeCloseWaitsForProofOnOtherStream: Close of a shape whose proof runs on a
// proof stream other than the main one waits for it (the proof reads the shape's
// arrays), then frees everything; the proof succeeds and later ones get ErrClosed.
func TestShapeCloseWaitsForProofOnOtherStream(t *testing.T) {
	b := testBackendWith(t, Config{ProofStreams: 2})
	pc := newPoolCircuit(t, b, r1cstest.Random{Seed: 74, Constraints: 100, Inputs: 2})
	// Take the main stream so that the proof runs on the other one.
	main := <-b.streams
	if !main.main {
		t.Fatal("the first free stream is not the main one")
	}
	held, release := make(chan struct{}), make(chan struct{})
	b.hooks.proofHeld = func() {
		close(held)
		<-release
	}
	proofErr := make(chan error, 1)
	go func() { proofErr <- pc.proveErr() }()
	select {
	case <-held:
	case <-time.After(30 * time.Second):
		t.Fatal("the proof did not start on the second stream while the main one was taken")
	}
	b.streams <- main
	closed := make(chan error, 1)
	go func() { closed <- pc.rc.Close() }()
	select {
	case err := <-closed:
		t.Fatalf("shape Close returned (%v) while a proof on it was running", err)
	case <-time.After(200 * time.Millisecond):
	}
	close(release)
	if err := <-proofErr; err != nil {
		t.Fatal(err)
	}
	if err := <-closed; err != nil {
		t.Fatal(err)
	}
	b.hooks.proofHeld = nil
	if b.PooledBytes() != 0 || pc.dev.DeviceBytes() != 0 {
		t.Fatalf("after Close: %d pooled bytes, shape holds %d", b.PooledBytes(), pc.dev.DeviceBytes())
	}
	if err := pc.proveErr(); !errors.Is(err, backend.ErrClosed) {
		t.Fatalf("proof after Close: %v, want ErrClosed", err)
	}
}

// TestProofStreamsConfig: out-of-range stream counts are refused.
func TestProofStreamsConfig(t *testing.T) {
	for _, n := range []int{-1, MaxProofStreams + 1} {
		if err := (Config{ProofStreams: n}).Validate(); err == nil {
			t.Errorf("ProofStreams %d accepted", n)
		}
	}
	if err := (Config{ProofStreams: MaxProofStreams}).Validate(); err != nil {
		t.Errorf("ProofStreams %d refused: %v", MaxProofStreams, err)
	}
}
