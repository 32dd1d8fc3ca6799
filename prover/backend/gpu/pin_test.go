package gpu

import (
	"errors"
	"testing"
	"time"
	"unsafe"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/ebitengine/purego"
	"github.com/snarkpipe/snarkpipe/prover/backend"
	"github.com/snarkpipe/snarkpipe/prover/r1cs/r1cstest"
)

// pinWait bounds how long PinHost may take while a proof is held; pinning a few
// kilobytes takes microseconds, a wait for the proof would take forever (the proof is
// only released after PinHost returns).
const pinWait = 20 * time.Second

// TestPinHostDuringProof: PinHost and unpin complete while another goroutine's proof
// holds the device lock (held in place by the test hook), and that proof still equals
// the CPU backend's once released.
func TestPinHostDuringProof(t *testing.T) {
	b := testBackend(t)
	pc := newPoolCircuit(t, b, r1cstest.Random{Seed: 61, Constraints: 120, Inputs: 2})
	held, release := make(chan struct{}), make(chan struct{})
	b.hooks.proofHeld = func() {
		close(held)
		<-release
	}
	proofErr := make(chan error, 1)
	go func() {
		got, _, err := pc.rc.Prove(pc.w.Inputs, pc.w.Aux, &pc.rs)
		if err == nil && got.Bytes() != pc.want {
			err = errors.New("held proof differs from the CPU backend's")
		}
		proofErr <- err
	}()
	<-held

	v := make([]fr.Element, 1000)
	done := make(chan error, 1)
	go func() {
		unpin, err := b.PinHost(v)
		if err == nil {
			err = unpin()
		}
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("pin and unpin during a proof: %v", err)
		}
	case <-time.After(pinWait):
		t.Error("PinHost waited for the proof in progress")
	}
	close(release)
	if err := <-proofErr; err != nil {
		t.Fatal(err)
	}
	b.hooks.proofHeld = nil
}

// TestPinHostPortable: the library registers pinned ranges portable (pinned for every
// GPU of the process), refuses a second registration of a pinned range, and unpin
// removes the registration. The registry is read through a symbol of the host
// emulation only; against a real library the test skips.
func TestPinHostPortable(t *testing.T) {
	b := testBackend(t)
	flagsOf := emuHostFlags(t)
	v := make([]fr.Element, 64)
	unpin, err := b.PinHost(v)
	if err != nil {
		t.Fatal(err)
	}
	var flags uint32
	if flagsOf(unsafe.Pointer(&v[0]), &flags) != 1 {
		t.Fatal("pinned range not registered")
	}
	const cudaHostRegisterPortable = 1
	if flags&cudaHostRegisterPortable == 0 {
		t.Fatalf("range registered with flags %#x, without cudaHostRegisterPortable", flags)
	}
	if _, err := b.PinHost(v[8:]); err == nil {
		t.Error("a range inside a pinned range was registered again")
	}
	if err := unpin(); err != nil {
		t.Fatal(err)
	}
	if flagsOf(unsafe.Pointer(&v[0]), &flags) != 0 {
		t.Fatal("range still registered after unpin")
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := b.PinHost(v); !errors.Is(err, backend.ErrClosed) {
		t.Fatalf("PinHost after Close: %v, want ErrClosed", err)
	}
}

// emuHostFlags binds snarkpipe_emu_host_flags of the loaded library, or skips the test
// when the library is not the host emulation.
func emuHostFlags(t *testing.T) func(p unsafe.Pointer, flags *uint32) int32 {
	t.Helper()
	h, err := purego.Dlopen(libPath(), purego.RTLD_NOW|purego.RTLD_GLOBAL)
	if err != nil {
		t.Skipf("cannot open the library again: %v", err)
	}
	sym, err := purego.Dlsym(h, "snarkpipe_emu_host_flags")
	if err != nil {
		t.Skip("not the host emulation: registration flags cannot be read back (check on the GPU host: cudaPointerGetAttributes)")
	}
	var f func(unsafe.Pointer, *uint32) int32
	purego.RegisterFunc(&f, sym)
	return f
}
