package gpu

import (
	"errors"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/snarkpipe/snarkpipe/cuda"
	"github.com/snarkpipe/snarkpipe/prover/backend"
	"github.com/snarkpipe/snarkpipe/prover/backend/cpu"
	"github.com/snarkpipe/snarkpipe/prover/groth16"
	"github.com/snarkpipe/snarkpipe/prover/r1cs"
	"github.com/snarkpipe/snarkpipe/prover/r1cs/r1cstest"
)

// poolCircuit is a resident circuit on the GPU backend beside the CPU backend's proving
// key for the same parameters, with one assignment and a fixed (r, s).
type poolCircuit struct {
	shape *r1cs.Shape
	w     *r1cs.Witness
	rs    groth16.Randomness
	rc    *groth16.ResidentCircuit
	dev   *residentShape // rc's shape on the backend
	want  [192]byte      // the CPU backend's proof
}

// newPoolCircuit records c, makes dev parameters, proves once on the CPU backend and
// loads the shape and key on b.
func newPoolCircuit(t *testing.T, b *Backend, c r1cstest.Random) *poolCircuit {
	t.Helper()
	shape, w := recordRandom(t, &c)
	seed := byte(c.Seed)
	params, err := groth16.DevSetup(shape, chachaReader{rand.NewChaCha8([32]byte{seed, 1})})
	if err != nil {
		t.Fatal(err)
	}
	pc := &poolCircuit{shape: shape, w: w}
	if pc.rs, err = groth16.SampleRandomness(chachaReader{rand.NewChaCha8([32]byte{seed, 2})}); err != nil {
		t.Fatal(err)
	}
	cb, err := cpu.New(cpu.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	pkCPU, err := groth16.NewProvingKey(cb, params, shape.Counts())
	if err != nil {
		t.Fatal(err)
	}
	as := groth16.AssignmentOf(w)
	as.A, as.B, as.C = slices.Clone(as.A), slices.Clone(as.B), slices.Clone(as.C)
	want, _, err := pkCPU.Prove(&shape.Density, as, &pc.rs)
	if err != nil {
		t.Fatal(err)
	}
	pc.want = want.Bytes()
	pkGPU, err := groth16.NewProvingKey(b, params, shape.Counts())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = pkGPU.Close() })
	before := b.loadedShapes()
	if pc.rc, err = pkGPU.LoadShape(shape); err != nil {
		t.Fatal(err)
	}
	for _, rs := range b.loadedShapes() {
		if !slices.Contains(before, rs) {
			pc.dev = rs
		}
	}
	if pc.dev == nil {
		t.Fatal("LoadShape did not register the shape with the backend")
	}
	return pc
}

// prove proves on the device (plain or bit-packed upload) and checks the bytes against
// the CPU backend's proof.
func (pc *poolCircuit) prove(t *testing.T, packed bool) groth16.DeviceTimings {
	t.Helper()
	var got groth16.Proof
	var tm groth16.DeviceTimings
	var err error
	if packed {
		pa := backend.PackAux(pc.w.Aux)
		got, tm, err = pc.rc.ProvePacked(pc.w.Inputs, &pa, &pc.rs)
	} else {
		got, tm, err = pc.rc.Prove(pc.w.Inputs, pc.w.Aux, &pc.rs)
	}
	if err != nil {
		t.Fatal(err)
	}
	if got.Bytes() != pc.want {
		t.Fatalf("device proof (packed %v) differs from the CPU backend's for the same (r, s)", packed)
	}
	return tm
}

func (b *Backend) loadedShapes() []*residentShape {
	b.poolMu.Lock()
	defer b.poolMu.Unlock()
	var out []*residentShape
	for rs := range b.shapes {
		out = append(out, rs)
	}
	return out
}

// allocLog records the sizes of the device allocations made through the backend.
type allocLog struct{ sizes []uint64 }

func (l *allocLog) hook(bytes uint64) error {
	l.sizes = append(l.sizes, bytes)
	return nil
}

// TestProofPoolReused: a shape's first proof allocates its pool (z and the three domain
// vectors) and later proofs, plain and packed, allocate nothing; every proof equals the
// CPU backend's; the shape reports its pool in DeviceBytes and the backend in PooledBytes.
func TestProofPoolReused(t *testing.T) {
	b := testBackend(t)
	pc := newPoolCircuit(t, b, r1cstest.Random{Seed: 51, Constraints: 300, Inputs: 3, Unused: 5})
	shapeOnly := pc.dev.DeviceBytes()
	if shapeOnly == 0 || b.PooledBytes() != 0 {
		t.Fatalf("before any proof: shape %d bytes, pools %d bytes", shapeOnly, b.PooledBytes())
	}
	var log allocLog
	b.hooks.alloc = log.hook
	defer func() { b.hooks.alloc = nil }()

	pc.prove(t, false)
	poolBytes := ProofPoolBytes(pc.shape.Sizes)
	var sum uint64
	for _, s := range log.sizes {
		sum += s
	}
	if len(log.sizes) != 4 || sum != poolBytes {
		t.Fatalf("first proof allocated %v (%d bytes), want the pool's 4 vectors of %d bytes", log.sizes, sum, poolBytes)
	}
	if got := pc.dev.DeviceBytes(); got != shapeOnly+poolBytes {
		t.Fatalf("DeviceBytes after a proof = %d, want shape %d + pool %d", got, shapeOnly, poolBytes)
	}
	if b.PooledBytes() != poolBytes {
		t.Fatalf("PooledBytes = %d, want %d", b.PooledBytes(), poolBytes)
	}
	log.sizes = nil
	for _, packed := range []bool{false, true, true, false} {
		pc.prove(t, packed)
	}
	if len(log.sizes) != 0 {
		t.Fatalf("proofs after the first allocated %v; the pool should serve them", log.sizes)
	}
}

// TestReserveProofBuffers: reserving allocates exactly the pool set the first proof
// would, once; that proof then allocates nothing and still equals the CPU's.
func TestReserveProofBuffers(t *testing.T) {
	b := testBackend(t)
	pc := newPoolCircuit(t, b, r1cstest.Random{Seed: 55, Constraints: 120, Inputs: 2, Unused: 4})
	var log allocLog
	b.hooks.alloc = log.hook
	defer func() { b.hooks.alloc = nil }()
	for range 2 {
		if err := pc.rc.ReserveBuffers(); err != nil {
			t.Fatal(err)
		}
	}
	poolBytes := ProofPoolBytes(pc.shape.Sizes)
	var sum uint64
	for _, s := range log.sizes {
		sum += s
	}
	if len(log.sizes) != 4 || sum != poolBytes || b.PooledBytes() != poolBytes {
		t.Fatalf("two reservations allocated %v (%d bytes), pooled %d; want one set of 4 vectors, %d bytes", log.sizes, sum, b.PooledBytes(), poolBytes)
	}
	log.sizes = nil
	pc.prove(t, false)
	if len(log.sizes) != 0 {
		t.Fatalf("the first proof after a reservation allocated %v", log.sizes)
	}
	if err := pc.rc.Close(); err != nil {
		t.Fatal(err)
	}
	if err := b.ReserveProofBuffers(pc.dev); err == nil || b.PooledBytes() != 0 {
		t.Fatalf("reserving on a closed shape: %v, %d bytes pooled; want an error and nothing", err, b.PooledBytes())
	}
}

// TestShapeCloseFreesPool: closing a shape frees its pool's four vectors and its
// arrays; the backend then holds no pooled memory.
func TestShapeCloseFreesPool(t *testing.T) {
	b := testBackend(t)
	pc := newPoolCircuit(t, b, r1cstest.Random{Seed: 52, Constraints: 100, Inputs: 2})
	pc.prove(t, false)
	if len(pc.dev.pool.idle) != 1 {
		t.Fatalf("after one proof the pool holds %d idle sets, want 1", len(pc.dev.pool.idle))
	}
	pool := pc.dev.pool.idle[0]
	var freed []cuda.DevPtr
	b.hooks.free = func(p cuda.DevPtr) { freed = append(freed, p) }
	defer func() { b.hooks.free = nil }()
	arrays := len(pc.dev.allocs)
	if err := pc.rc.Close(); err != nil {
		t.Fatal(err)
	}
	for _, p := range []cuda.DevPtr{pool.z, pool.a, pool.b, pool.c} {
		if !slices.Contains(freed, p) {
			t.Fatalf("pool vector %#x not freed by Close (freed %v)", p, freed)
		}
	}
	if len(freed) != 4+arrays {
		t.Fatalf("Close freed %d buffers, want the pool's 4 and the shape's %d arrays", len(freed), arrays)
	}
	if b.PooledBytes() != 0 || pc.dev.DeviceBytes() != 0 || len(b.loadedShapes()) != 0 {
		t.Fatalf("after Close: pools %d bytes, shape %d bytes, %d shapes loaded", b.PooledBytes(), pc.dev.DeviceBytes(), len(b.loadedShapes()))
	}
	if _, _, err := pc.rc.Prove(pc.w.Inputs, pc.w.Aux, &pc.rs); !errors.Is(err, backend.ErrClosed) {
		t.Fatalf("proof on a closed shape: %v, want ErrClosed", err)
	}
}

// outOfMemory is the status the library returns when cudaMallocAsync fails.
func outOfMemory() error {
	return &cuda.StatusError{Func: "mem_alloc", Code: cuda.CodeNoMemory, Msg: "injected: out of memory"}
}

// TestProofTrimsPoolsOnOutOfMemory: when an allocation of a proof fails for lack of
// device memory, the backend frees the other shapes' idle pools and retries once, on one
// stream (no side stream): the proof then succeeds and equals the CPU's. When memory stays short the proof fails with
// the library's out-of-memory status after exactly one retry. TrimIdle frees every pool.
func TestProofTrimsPoolsOnOutOfMemory(t *testing.T) {
	b := testBackend(t)
	first := newPoolCircuit(t, b, r1cstest.Random{Seed: 53, Constraints: 200, Inputs: 2})
	second := newPoolCircuit(t, b, r1cstest.Random{Seed: 54, Constraints: 150, Inputs: 4, Unused: 3})
	if !first.prove(t, false).SideStream {
		t.Error("a proof with memory to spare did not use the side stream")
	}
	if first.dev.poolBytes.Load() == 0 {
		t.Fatal("first shape holds no pool after its proof")
	}

	calls := 0
	b.hooks.alloc = func(uint64) error {
		calls++
		if calls == 1 {
			return outOfMemory()
		}
		return nil
	}
	if tm := second.prove(t, true); tm.SideStream || tm.OutOfMemoryRetries != 1 {
		t.Errorf("the retry after running out of memory: side stream %v, %d retries; want one stream, 1",
			tm.SideStream, tm.OutOfMemoryRetries)
	}
	if first.dev.poolBytes.Load() != 0 {
		t.Error("the idle pool of the other shape survived the out-of-memory retry")
	}
	if second.dev.poolBytes.Load() != ProofPoolBytes(second.shape.Sizes) {
		t.Errorf("retried shape holds %d pool bytes, want %d", second.dev.poolBytes.Load(), ProofPoolBytes(second.shape.Sizes))
	}
	if b.trims.Load() != 1 {
		t.Errorf("%d trims after one injected failure, want 1", b.trims.Load())
	}

	// Memory stays short: the pool of `first` (dropped above) cannot come back.
	calls = 0
	b.hooks.alloc = func(uint64) error { calls++; return outOfMemory() }
	_, _, err := first.rc.Prove(first.w.Inputs, first.w.Aux, &first.rs)
	var se *cuda.StatusError
	if !errors.As(err, &se) || se.Code != cuda.CodeNoMemory {
		t.Fatalf("proof without memory: %v, want the library's out-of-memory status", err)
	}
	if calls != 2 {
		t.Fatalf("%d allocation attempts, want 2 (one retry)", calls)
	}
	if first.dev.poolBytes.Load() != 0 {
		t.Fatal("a failed pool allocation left bytes accounted")
	}

	// Loading bases retries after a trim too.
	calls = 0
	b.hooks.alloc = func(uint64) error {
		calls++
		if calls == 1 {
			return outOfMemory()
		}
		return nil
	}
	pts, _ := randPoints(rand.New(rand.NewPCG(5, 5)), 3)
	g1, err := b.LoadG1(pts)
	if err != nil {
		t.Fatalf("LoadG1 after one out-of-memory failure: %v", err)
	}
	_ = g1.Close()
	b.hooks.alloc = nil

	first.prove(t, false)
	want := b.PooledBytes()
	freed, err := b.TrimIdle()
	if err != nil {
		t.Fatal(err)
	}
	if freed != want || freed == 0 || b.PooledBytes() != 0 {
		t.Fatalf("TrimIdle freed %d of %d pooled bytes; %d left", freed, want, b.PooledBytes())
	}
	first.prove(t, false) // the pool comes back
	second.prove(t, false)
}

// TestSideStreamOutOfMemoryFinishesOnMainStream: when the H MSM or a side-stream stage
// (L, B1, B2, A) runs out of device memory, the proof does not run again from the start:
// that stage and the side stages after it run on the proof's own stream after a trim, and
// the proof equals the CPU backend's. The shape's later proofs start on one stream (no
// failed stage, no trim), and so does a shape of the same sizes loaded again; a shape of
// other sizes keeps its side stream. An out-of-memory quotient still runs the proof again.
func TestSideStreamOutOfMemoryFinishesOnMainStream(t *testing.T) {
	b := testBackend(t)
	defer func() { b.hooks = testHooks{} }()
	sideOrder := []string{"L", "B1", "B2", "A"}
	for k, fail := range []string{"L", "B1", "B2", "A", "H"} {
		b.hooks = testHooks{}
		pc := newPoolCircuit(t, b, r1cstest.Random{Seed: 56 + uint64(k), Constraints: 180, Inputs: 3})
		if !pc.prove(t, false).SideStream {
			t.Fatal("a proof with memory to spare did not use the side stream")
		}
		var onSide, onMain []string
		failed := false
		b.hooks.stage = func(name string, side bool) error {
			if side {
				onSide = append(onSide, name)
			} else {
				onMain = append(onMain, name)
			}
			if name == fail && !failed {
				failed = true
				return outOfMemory()
			}
			return nil
		}
		trims := b.trims.Load()
		tm := pc.prove(t, false)
		if !tm.SideStream || tm.OutOfMemoryRetries != 1 || b.trims.Load() != trims+1 || !pc.dev.oneStream.Load() {
			t.Fatalf("%s out of memory: side stream %v, %d retries, %d trims, shape on one stream %v; want true, 1, 1, true",
				fail, tm.SideStream, tm.OutOfMemoryRetries, b.trims.Load()-trims, pc.dev.oneStream.Load())
		}
		// The side stream stops at the failed stage; the proof's own stream runs the
		// stages up to H once, then H again if it failed, then the side stages left.
		wantSide := sideOrder
		if i := slices.Index(sideOrder, fail); i >= 0 {
			wantSide = sideOrder[:i+1]
		}
		wantMain := []string{"upload", "eval", "quotient", "H"}
		if fail == "H" {
			wantMain = append(wantMain, "H")
		} else {
			wantMain = append(wantMain, sideOrder[len(wantSide)-1:]...)
		}
		if !slices.Equal(onSide, wantSide) || !slices.Equal(onMain, wantMain) {
			t.Errorf("%s out of memory: stages on the side stream %v, on the proof's stream %v; want %v and %v",
				fail, onSide, onMain, wantSide, wantMain)
		}
		onSide, onMain = nil, nil
		if tm := pc.prove(t, true); tm.SideStream || tm.OutOfMemoryRetries != 0 || b.trims.Load() != trims+1 || len(onSide) != 0 {
			t.Errorf("%s: the shape's next proof used the side stream or ran out (%d trims, side stages %v), want one stream",
				fail, b.trims.Load()-trims, onSide)
		}
	}
	b.hooks = testHooks{}
	again := newPoolCircuit(t, b, r1cstest.Random{Seed: 56, Constraints: 180, Inputs: 3})
	if tm := again.prove(t, false); tm.SideStream || !again.dev.oneStream.Load() {
		t.Error("a shape loaded again with the sizes of one that ran out used the side stream")
	}
	roomy := newPoolCircuit(t, b, r1cstest.Random{Seed: 61, Constraints: 120, Inputs: 2})
	if !roomy.prove(t, false).SideStream {
		t.Fatal("another shape lost its side stream")
	}
	quotientOOM := false
	b.hooks.stage = func(name string, side bool) error {
		if name == "quotient" && !quotientOOM {
			quotientOOM = true
			return outOfMemory()
		}
		return nil
	}
	if tm := roomy.prove(t, false); tm.SideStream || tm.OutOfMemoryRetries != 1 || !roomy.dev.oneStream.Load() {
		t.Errorf("quotient out of memory: side stream %v, %d retries, shape on one stream %v; want a run again on one stream",
			tm.SideStream, tm.OutOfMemoryRetries, roomy.dev.oneStream.Load())
	}
}

// TestLoadShapeRetriesOnOutOfMemory: a shape upload that runs out of device memory
// part-way frees what it had uploaded, trims, and uploads again; the shape then
// evaluates correctly and nothing leaks.
func TestLoadShapeRetriesOnOutOfMemory(t *testing.T) {
	b := testBackend(t)
	shape, w := recordRandom(t, &r1cstest.Random{Seed: 55, Constraints: 90, Inputs: 3, Unused: 2})
	calls, frees := 0, 0
	b.hooks.alloc = func(uint64) error {
		calls++
		if calls == 3 { // the third of the shape's arrays
			return outOfMemory()
		}
		return nil
	}
	live := map[cuda.DevPtr]bool{}
	b.hooks.free = func(p cuda.DevPtr) { frees++; delete(live, p) }
	defer func() { b.hooks = testHooks{} }()
	s, err := b.LoadShape(shape)
	if err != nil {
		t.Fatalf("LoadShape after one out-of-memory failure: %v", err)
	}
	rs := s.(*residentShape)
	for _, p := range rs.allocs {
		live[p] = true
	}
	if b.trims.Load() != 1 {
		t.Fatalf("%d trims, want 1", b.trims.Load())
	}
	// Two arrays uploaded before the failure and freed by the retry, the failed
	// allocation, then all of the shape's arrays.
	if want := 2 + 1 + len(rs.allocs); calls != want || frees != 2 {
		t.Fatalf("%d allocation attempts and %d frees, want %d and 2", calls, frees, want)
	}
	ga, _, _, err := b.EvalResident(s, w.Inputs, w.Aux)
	if err != nil {
		t.Fatal(err)
	}
	z := append(slices.Clone(w.Inputs), w.Aux...)
	wa := make([]fr.Element, shape.Rows())
	if err := shape.Eval(z, wa, make([]fr.Element, shape.Rows()), make([]fr.Element, shape.Rows()), 1); err != nil {
		t.Fatal(err)
	}
	for j := range wa {
		if !ga[j].Equal(&wa[j]) {
			t.Fatalf("row %d of A·z differs after the retried upload", j)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if len(live) != 0 {
		t.Fatalf("%d of the shape's arrays not freed by Close", len(live))
	}
}
