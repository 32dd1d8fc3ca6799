package gpu

import (
	"errors"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/snarkpipe/snarkpipe/cuda"
	"github.com/snarkpipe/snarkpipe/prover/backend"
	"github.com/snarkpipe/snarkpipe/prover/backend/cpu"
	"github.com/snarkpipe/snarkpipe/prover/groth16"
	"github.com/snarkpipe/snarkpipe/prover/r1cs"
	"github.com/snarkpipe/snarkpipe/prover/r1cs/r1cstest"
)

// recordRandom records a random circuit and builds its assignment (inputs, aux).
func recordRandom(t testing.TB, c *r1cstest.Random) (*r1cs.Shape, *r1cs.Witness) {
	t.Helper()
	rec := r1cs.NewRecorder(r1cs.Capacity{})
	if err := c.Synthesize(rec); err != nil {
		t.Fatal(err)
	}
	w := r1cs.NewWitness(r1cs.Capacity{})
	if err := c.Synthesize(w); err != nil {
		t.Fatal(err)
	}
	w.Finish()
	return rec.Finish(), w
}

// residentCircuits are the random shapes of the sparse-product tests: empty-ish, inputs
// scattered, unused aux (density holes), and a domain with a long zero tail.
var residentCircuits = []r1cstest.Random{
	{Seed: 1, Constraints: 1},
	{Seed: 2, Constraints: 37, Inputs: 3},
	{Seed: 3, Constraints: 300, Inputs: 9, Unused: 20},
	{Seed: 4, Constraints: 1030, Inputs: 1, Unused: 3},
}

// TestEvalResidentMatchesShapeEval: A·z, B·z, C·z on the device equal Shape.Eval on the
// host for every row, and the padding up to the domain is zero.
func TestEvalResidentMatchesShapeEval(t *testing.T) {
	b := testBackend(t)
	for _, c := range residentCircuits {
		shape, w := recordRandom(t, &c)
		rows, m := shape.Rows(), shape.DomainSize()
		want := [3][]fr.Element{make([]fr.Element, rows), make([]fr.Element, rows), make([]fr.Element, rows)}
		z := append(append([]fr.Element(nil), w.Inputs...), w.Aux...)
		if err := shape.Eval(z, want[0], want[1], want[2], 1); err != nil {
			t.Fatal(err)
		}
		rs, err := b.LoadShape(shape)
		if err != nil {
			t.Fatal(err)
		}
		ga, gb, gc, err := b.EvalResident(rs, w.Inputs, w.Aux)
		if err != nil {
			t.Fatal(err)
		}
		for side, got := range [][]fr.Element{ga, gb, gc} {
			if len(got) != m {
				t.Fatalf("%s: side %d has %d values, want the domain %d", c.ID(), side, len(got), m)
			}
			for j := range got {
				var exp fr.Element
				if j < rows {
					exp = want[side][j]
				}
				if !got[j].Equal(&exp) {
					t.Fatalf("%s: side %d row %d (of %d rows, domain %d) differs", c.ID(), side, j, rows, m)
				}
			}
		}
		if err := rs.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// TestQuotientResidentMatchesCPU: h computed from z on the device equals the CPU
// backend's QuotientH of the host row evaluations.
func TestQuotientResidentMatchesCPU(t *testing.T) {
	b := testBackend(t)
	cb, err := cpu.New(cpu.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range residentCircuits {
		shape, w := recordRandom(t, &c)
		m := shape.DomainSize()
		if m < 2 {
			continue
		}
		a, bv, cv := make([]fr.Element, m), make([]fr.Element, m), make([]fr.Element, m)
		z := append(append([]fr.Element(nil), w.Inputs...), w.Aux...)
		if err := shape.Eval(z, a, bv, cv, 1); err != nil {
			t.Fatal(err)
		}
		if err := cb.QuotientH(a, bv, cv); err != nil {
			t.Fatal(err)
		}
		rs, err := b.LoadShape(shape)
		if err != nil {
			t.Fatal(err)
		}
		h, err := b.QuotientResident(rs, w.Inputs, w.Aux)
		_ = rs.Close()
		if err != nil {
			t.Fatal(err)
		}
		if len(h) != m-1 {
			t.Fatalf("%s: h has %d coefficients, want %d", c.ID(), len(h), m-1)
		}
		for i := range h {
			if !h[i].Equal(&a[i]) {
				t.Fatalf("%s: h[%d] differs from the CPU quotient", c.ID(), i)
			}
		}
	}
}

// TestResidentProofMatchesCPU: the pre-compiled path (shape resident, only z uploaded)
// gives the CPU backend's proof bytes for the same parameters and (r, s), and it verifies.
func TestResidentProofMatchesCPU(t *testing.T) {
	b := testBackend(t)
	circuits := []r1cstest.Random{{Seed: 7, Constraints: 200, Inputs: 4}, {Seed: 8, Constraints: 513, Inputs: 2}}
	if !testing.Short() {
		circuits = append(circuits, r1cstest.Random{Seed: 9, Constraints: 1 << 14, Inputs: 5})
	}
	cb, err := cpu.New(cpu.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range circuits {
		shape, w := recordRandom(t, &c)
		params, err := groth16.DevSetup(shape, chachaReader{rand.NewChaCha8([32]byte{byte(i), 1})})
		if err != nil {
			t.Fatal(err)
		}
		rs, err := groth16.SampleRandomness(chachaReader{rand.NewChaCha8([32]byte{byte(i), 2})})
		if err != nil {
			t.Fatal(err)
		}
		pkCPU, err := groth16.NewProvingKey(cb, params, shape.Counts())
		if err != nil {
			t.Fatal(err)
		}
		as := groth16.AssignmentOf(w)
		clone := func(v []fr.Element) []fr.Element { return append([]fr.Element(nil), v...) }
		as.A, as.B, as.C = clone(as.A), clone(as.B), clone(as.C)
		want, _, err := pkCPU.Prove(&shape.Density, as, &rs)
		if err != nil {
			t.Fatal(err)
		}
		pkGPU, err := groth16.NewProvingKey(b, params, shape.Counts())
		if err != nil {
			t.Fatal(err)
		}
		rc, err := pkGPU.LoadShape(shape)
		if err != nil {
			t.Fatal(err)
		}
		got, tm, err := rc.Prove(w.Inputs, w.Aux, &rs)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: resident proof %v (wait %v, buffers %v, upload %v, eval %v, quotient %v, H %v, L %v, A %v, B1 %v, B2 %v, assemble %v)",
			c.ID(), tm.Total, tm.Wait, tm.Buffers, tm.Upload, tm.Eval, tm.Quotient, tm.MSMH, tm.MSML, tm.MSMA, tm.MSMB1, tm.MSMB2, tm.Assemble)
		if got.Bytes() != want.Bytes() {
			t.Fatalf("%s: resident GPU proof differs from the CPU proof for the same (r, s)", c.ID())
		}
		// The first proof of a shape allocates its buffers.
		if tm.Buffers <= 0 {
			t.Errorf("%s: first proof of the shape timed %v for its buffers", c.ID(), tm.Buffers)
		}
		expectTimingsAddUp(t, string(c.ID()), tm, false)
		if err := params.VK.Verify(&got, w.Inputs[1:]); err != nil {
			t.Fatalf("%s: resident GPU proof does not verify: %v", c.ID(), err)
		}
		if tm.MSMRoundsDropped != 0 {
			t.Errorf("%s: %d MSMs dropped their pair rounds with room to spare", c.ID(), tm.MSMRoundsDropped)
		}
		if i == 0 {
			dropped := expectDroppedRounds(t, b, rc, w, &rs, got.Bytes())
			expectSerialMSMsProof(t, params, shape, w, &rs, got.Bytes(), dropped)
		}
		_ = rc.Close()
		_ = pkGPU.Close()
	}
}

// expectTimingsAddUp: wait, buffers and the stages of one stream are disjoint parts of
// the call; with the side stream (not serial), the stages of each stream are: upload,
// A·z, the quotient and H on the proof's, L, A, B1 and B2 on the side after A·z.
func expectTimingsAddUp(t *testing.T, id string, tm groth16.DeviceTimings, serial bool) {
	t.Helper()
	before := tm.Wait + tm.Buffers + tm.Upload + tm.Eval
	small := tm.MSML + tm.MSMA + tm.MSMB1 + tm.MSMB2
	type span struct {
		what string
		d    time.Duration
	}
	spans := []span{{"the proof stream", before + tm.Quotient + tm.MSMH}, {"the side stream", before + small}}
	if serial {
		spans = []span{{"all stages", before + tm.Quotient + tm.MSMH + small}}
	}
	for _, sp := range spans {
		if tm.Wait < 0 || sp.d > tm.Total {
			t.Errorf("%s: timings do not add up: wait, buffers and %s take %v, the call %v", id, sp.what, sp.d, tm.Total)
		}
	}
}

// loadResident makes shape resident under pk; both are closed when the test ends.
func loadResident(t *testing.T, pk *groth16.ProvingKey, shape *r1cs.Shape) *groth16.ResidentCircuit {
	t.Helper()
	t.Cleanup(func() { _ = pk.Close() })
	rc, err := pk.LoadShape(shape)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = rc.Close() })
	return rc
}

// expectSerialMSMsProof proves with every stage on one stream (Config.SerialMSMs; the
// default backend runs the small MSMs on a side stream): the same proof bytes, and as
// full a device the same count of MSMs without pair rounds as the default backend
// counted over its two contexts (dropped).
func expectSerialMSMsProof(t *testing.T, params *groth16.Params, shape *r1cs.Shape, w *r1cs.Witness, rs *groth16.Randomness, want [192]byte, dropped int) {
	t.Helper()
	b := testBackendWith(t, Config{SerialMSMs: true})
	pk, err := groth16.NewProvingKey(b, params, shape.Counts())
	if err != nil {
		t.Fatal(err)
	}
	rc := loadResident(t, pk, shape)
	got, tm, err := rc.Prove(w.Inputs, w.Aux, rs)
	if err != nil {
		t.Fatal(err)
	}
	if got.Bytes() != want {
		t.Fatal("serial MSMs: the proof differs from the side-stream proof")
	}
	expectTimingsAddUp(t, "serial MSMs", tm, true)
	if n := expectDroppedRounds(t, b, rc, w, rs, want); n != dropped {
		t.Errorf("serial MSMs: %d MSMs counted without pair rounds, the side-stream proof counted %d", n, dropped)
	}
}

// expectDroppedRounds proves again as on a full device (no room for the MSMs' pair
// rounds): the same proof, and the timings count the MSMs that ran without the rounds,
// which it returns.
func expectDroppedRounds(t *testing.T, b *Backend, rc *groth16.ResidentCircuit, w *r1cs.Witness, rs *groth16.Randomness, want [192]byte) int {
	t.Helper()
	b.window = msmTuneFailPairs
	defer func() { b.window = 0 }()
	got, tm, err := rc.Prove(w.Inputs, w.Aux, rs)
	if err != nil {
		t.Fatal(err)
	}
	if got.Bytes() != want {
		t.Error("the proof without pair rounds differs")
	}
	if tm.MSMRoundsDropped < 1 || tm.MSMRoundsDropped > 5 {
		t.Errorf("%d MSMs counted without pair rounds, want 1..5", tm.MSMRoundsDropped)
	}
	return tm.MSMRoundsDropped
}

// TestLoadShapeRejectsBadShapes: out-of-range columns or slots, broken row pointers and a
// table without the 1 / −1 slots are refused before any upload; a closed shape and a
// wrongly sized assignment are errors, not kernel faults.
func TestLoadShapeRejectsBadShapes(t *testing.T) {
	b := testBackend(t)
	good := func() *r1cs.Shape {
		s, _ := recordRandom(t, &r1cstest.Random{Seed: 5, Constraints: 20, Inputs: 2})
		return s
	}
	cases := map[string]func(s *r1cs.Shape){
		"column past z":        func(s *r1cs.Shape) { s.B.Col[0] = uint32(s.NumInputs + s.NumAux) },
		"slot past table":      func(s *r1cs.Shape) { s.C.Coeff[0] = uint32(len(s.Coeffs)) },
		"row pointer backward": func(s *r1cs.Shape) { s.A.RowPtr[1], s.A.RowPtr[2] = s.A.RowPtr[2]+1, s.A.RowPtr[1] },
		"short row pointers":   func(s *r1cs.Shape) { s.A.RowPtr = s.A.RowPtr[:len(s.A.RowPtr)-1] },
		"table without ±1":     func(s *r1cs.Shape) { s.Coeffs[1].SetOne() },
		"density length":       func(s *r1cs.Shape) { s.AAux.Len-- },
	}
	for name, corrupt := range cases {
		s := good()
		corrupt(s)
		if _, err := b.LoadShape(s); err == nil {
			t.Errorf("%s: LoadShape accepted a corrupt shape", name)
		}
	}
	s, w := recordRandom(t, &r1cstest.Random{Seed: 5, Constraints: 20, Inputs: 2})
	rs, err := b.LoadShape(s)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.QuotientResident(rs, w.Inputs, w.Aux[1:]); err == nil {
		t.Error("short aux accepted")
	}
	if err := rs.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := b.QuotientResident(rs, w.Inputs, w.Aux); !errors.Is(err, backend.ErrClosed) {
		t.Errorf("closed shape: got %v, want ErrClosed", err)
	}
}

// TestBenchSetupMatchesDevSetup: the device setup with the same waste as DevSetup gives a
// key whose proofs equal the CPU proofs from DevSetup's parameters (same r, s), through
// both the resident path and the plain Prove, and they verify with BenchSetup's VK.
func TestBenchSetupMatchesDevSetup(t *testing.T) {
	b := testBackend(t)
	cb, err := cpu.New(cpu.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range []r1cstest.Random{{Seed: 21, Constraints: 90, Inputs: 3}, {Seed: 22, Constraints: 260, Inputs: 1}} {
		shape, w := recordRandom(t, &c)
		seed := [32]byte{byte(i), 9}
		params, err := groth16.DevSetup(shape, chachaReader{rand.NewChaCha8(seed)})
		if err != nil {
			t.Fatal(err)
		}
		pkGPU, err := groth16.BenchSetup(b, shape, chachaReader{rand.NewChaCha8(seed)})
		if err != nil {
			t.Fatal(err)
		}
		if !pkGPU.Params.Dev {
			t.Fatal("bench key not marked Dev")
		}
		if pkGPU.Params.VK.DeltaG1 != params.VK.DeltaG1 || len(pkGPU.Params.VK.IC) != len(params.VK.IC) {
			t.Fatalf("%s: bench VK differs from DevSetup's", c.ID())
		}
		// Read back to the host, the device key is DevSetup's parameter set point for point.
		host, err := pkGPU.HostParams()
		if err != nil {
			t.Fatal(err)
		}
		if !host.Equal(params) {
			t.Fatalf("%s: the bench key read back differs from DevSetup's parameters", c.ID())
		}
		host.Close()
		for j := range params.VK.IC {
			if pkGPU.Params.VK.IC[j] != params.VK.IC[j] {
				t.Fatalf("%s: IC[%d] differs", c.ID(), j)
			}
		}
		rs, err := groth16.SampleRandomness(chachaReader{rand.NewChaCha8([32]byte{byte(i), 10})})
		if err != nil {
			t.Fatal(err)
		}
		pkCPU, err := groth16.NewProvingKey(cb, params, shape.Counts())
		if err != nil {
			t.Fatal(err)
		}
		as := groth16.AssignmentOf(w)
		clone := func(v []fr.Element) []fr.Element { return append([]fr.Element(nil), v...) }
		as.A, as.B, as.C = clone(as.A), clone(as.B), clone(as.C)
		want, _, err := pkCPU.Prove(&shape.Density, as, &rs)
		if err != nil {
			t.Fatal(err)
		}
		rc, err := pkGPU.LoadShape(shape)
		if err != nil {
			t.Fatal(err)
		}
		got, _, err := rc.Prove(w.Inputs, w.Aux, &rs)
		if err != nil {
			t.Fatal(err)
		}
		if got.Bytes() != want.Bytes() {
			t.Fatalf("%s: proof with the device-generated key differs from the DevSetup proof", c.ID())
		}
		as2 := groth16.AssignmentOf(w)
		as2.A, as2.B, as2.C = clone(as2.A), clone(as2.B), clone(as2.C)
		plain, _, err := pkGPU.Prove(&shape.Density, as2, &rs)
		if err != nil {
			t.Fatal(err)
		}
		if plain.Bytes() != want.Bytes() {
			t.Fatalf("%s: plain Prove with the device-generated key differs from the DevSetup proof", c.ID())
		}
		if err := pkGPU.Params.VK.Verify(&got, w.Inputs[1:]); err != nil {
			t.Fatalf("%s: proof does not verify against the bench VK: %v", c.ID(), err)
		}
		_ = rc.Close()
		_ = pkGPU.Close()
	}
}

// TestGenerateKeyRefusesDegenerateWaste: τ inside the domain (t(τ) = 0) or a zero γ / δ
// would divide by zero; the setup refuses before any kernel.
func TestGenerateKeyRefusesDegenerateWaste(t *testing.T) {
	b := testBackend(t)
	shape, _ := recordRandom(t, &r1cstest.Random{Seed: 6, Constraints: 10, Inputs: 1})
	var good backend.SetupWaste
	for i, e := range []*fr.Element{&good.Tau, &good.Alpha, &good.Beta, &good.Gamma, &good.Delta} {
		e.SetUint64(uint64(1000 + i))
	}
	for name, w := range map[string]backend.SetupWaste{
		"tau = 1":   func() backend.SetupWaste { w := good; w.Tau.SetOne(); return w }(),
		"gamma = 0": func() backend.SetupWaste { w := good; w.Gamma.SetZero(); return w }(),
		"delta = 0": func() backend.SetupWaste { w := good; w.Delta.SetZero(); return w }(),
	} {
		if _, _, err := b.GenerateKey(shape, w); err == nil {
			t.Errorf("%s: degenerate waste accepted", name)
		}
	}
	k, ic, err := b.GenerateKey(shape, good)
	if err != nil {
		t.Fatal(err)
	}
	if len(ic) != shape.NumInputs || k.L.Len() != shape.NumAux || k.H.Len() != shape.DomainSize()-1 {
		t.Fatalf("key lengths: ic %d, l %d, h %d", len(ic), k.L.Len(), k.H.Len())
	}
	for _, c := range []interface{ Close() error }{k.H, k.L, k.A, k.BG1, k.BG2} {
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// TestUnpackMatchesHost: the device expansion of a packed aux vector (45 % zeros, 30 %
// ones) equals the original, for sizes around the word boundary.
func TestUnpackMatchesHost(t *testing.T) {
	b := testBackend(t)
	rng := rand.New(rand.NewPCG(3, 4))
	for _, c := range []struct {
		n, domain int
		staged    bool // the packed arrays fit in the row vectors b and c (256-byte aligned)
	}{
		{1, 16, true}, {64, 64, true}, {65, 128, true}, {777, 1024, true},
		{1, 1, false}, {65, 2, false}, {777, 1, false}, // temporary buffers
	} {
		n := c.n
		aux := make([]fr.Element, n)
		for i := range aux {
			switch u := rng.IntN(100); {
			case u < 45:
			case u < 75:
				aux[i].SetOne()
			default:
				aux[i] = randFr(rng)
			}
		}
		packed := backend.PackAux(aux)
		inputs := []fr.Element{fr.One(), randFr(rng)}
		rs := &residentShape{b: b, inputs: len(inputs), aux: n, domain: c.domain}
		allocs := 0
		b.hooks.alloc = func(uint64) error { allocs++; return nil }
		var got []fr.Element
		err := b.call(func(ctx cuda.Ctx) error {
			p, err := b.checkout(ctx, rs)
			if err != nil {
				return err
			}
			defer func() {
				b.checkin(rs, p)
				b.poolMu.Lock()
				_, _ = b.dropIdle(ctx, rs)
				b.poolMu.Unlock()
			}()
			if err := b.uploadPacked(ctx, rs, inputs, &packed, p); err != nil {
				return err
			}
			got, err = b.download(ctx, p.z, len(inputs)+n)
			return err
		})
		b.hooks.alloc = nil
		if err != nil {
			t.Fatal(err)
		}
		// The pool's four vectors, and temporaries only when the arrays do not fit in b, c.
		if c.staged != (allocs == 4) {
			t.Errorf("n=%d, domain %d: %d device allocations (staged in the row vectors: %v)", n, c.domain, allocs, c.staged)
		}
		want := append(append([]fr.Element(nil), inputs...), aux...)
		for i := range want {
			if !got[i].Equal(&want[i]) {
				t.Fatalf("n=%d: z[%d] differs after the device expansion", n, i)
			}
		}
	}
}

// TestPackedProofMatchesPlain: a proof from the packed upload equals the plain resident
// proof's bytes; a packing of the wrong length is refused.
func TestPackedProofMatchesPlain(t *testing.T) {
	b := testBackend(t)
	c := r1cstest.Random{Seed: 31, Constraints: 300, Inputs: 2, Unused: 0}
	shape, w := recordRandom(t, &c)
	pk, err := groth16.BenchSetup(b, shape, chachaReader{rand.NewChaCha8([32]byte{31})})
	if err != nil {
		t.Fatal(err)
	}
	rc := loadResident(t, pk, shape)
	rs, _ := groth16.SampleRandomness(chachaReader{rand.NewChaCha8([32]byte{32})})
	want, _, err := rc.Prove(w.Inputs, w.Aux, &rs)
	if err != nil {
		t.Fatal(err)
	}
	packed := backend.PackAux(w.Aux)
	got, _, err := rc.ProvePacked(w.Inputs, &packed, &rs)
	if err != nil {
		t.Fatal(err)
	}
	if got.Bytes() != want.Bytes() {
		t.Fatal("packed-upload proof differs from the plain resident proof")
	}
	short := backend.PackAux(w.Aux[1:])
	if _, _, err := rc.ProvePacked(w.Inputs, &short, &rs); err == nil {
		t.Error("packed aux of the wrong length accepted")
	}
}

// TestPinnedAssignmentProves: a resident proof from page-locked inputs and aux equals the
// one from ordinary memory; unpinning twice is harmless; an empty vector is refused.
func TestPinnedAssignmentProves(t *testing.T) {
	b := testBackend(t)
	shape, w := recordRandom(t, &r1cstest.Random{Seed: 41, Constraints: 100, Inputs: 2})
	pk, err := groth16.BenchSetup(b, shape, chachaReader{rand.NewChaCha8([32]byte{41})})
	if err != nil {
		t.Fatal(err)
	}
	rc := loadResident(t, pk, shape)
	rs, _ := groth16.SampleRandomness(chachaReader{rand.NewChaCha8([32]byte{42})})
	want, _, err := rc.Prove(w.Inputs, w.Aux, &rs)
	if err != nil {
		t.Fatal(err)
	}
	var unpins []func() error
	for _, v := range [][]fr.Element{w.Inputs, w.Aux} {
		u, err := b.PinHost(v)
		if err != nil {
			t.Fatal(err)
		}
		unpins = append(unpins, u)
	}
	got, _, err := rc.Prove(w.Inputs, w.Aux, &rs)
	if err != nil {
		t.Fatal(err)
	}
	if got.Bytes() != want.Bytes() {
		t.Fatal("proof from pinned memory differs")
	}
	for _, u := range unpins {
		if err := u(); err != nil {
			t.Fatal(err)
		}
		if err := u(); err != nil {
			t.Fatal("second unpin:", err)
		}
	}
	if _, err := b.PinHost(nil); err == nil {
		t.Error("PinHost(nil) accepted")
	}
}
