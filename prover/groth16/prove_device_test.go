package groth16_test

import (
	"errors"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/snarkpipe/snarkpipe/prover/backend"
	"github.com/snarkpipe/snarkpipe/prover/backend/cpu"
	"github.com/snarkpipe/snarkpipe/prover/groth16"
	"github.com/snarkpipe/snarkpipe/prover/r1cs"
	"github.com/snarkpipe/snarkpipe/prover/r1cs/r1cstest"
)

// hostEvaluator gives the CPU backend the optional ShapeEvaluator capability by doing
// on the host what a device does (Shape.Eval, QuotientH, density gathers, five MSMs), so
// ResidentCircuit's plumbing (key vectors, blinding, checks) is tested without a GPU.
type hostEvaluator struct{ backend.Backend }

type hostShape struct{ s *r1cs.Shape }

func (hostShape) Close() error { return nil }

func (h hostEvaluator) LoadShape(s *r1cs.Shape) (backend.ResidentShape, error) {
	return hostShape{s}, nil
}

func (h hostEvaluator) ProveResident(rs backend.ResidentShape, inputs, aux []fr.Element, k backend.ResidentKey) (backend.ResidentResults, error) {
	var res backend.ResidentResults
	s := rs.(hostShape).s
	m := s.DomainSize()
	a, b, c := make([]fr.Element, m), make([]fr.Element, m), make([]fr.Element, m)
	z := append(append([]fr.Element(nil), inputs...), aux...)
	if err := s.Eval(z, a, b, c, 1); err != nil {
		return res, err
	}
	if err := h.QuotientH(a, b, c); err != nil {
		return res, err
	}
	var sa, sb []fr.Element
	for i := range inputs {
		sa = append(sa, inputs[i])
		if s.BInput.Get(i) {
			sb = append(sb, inputs[i])
		}
	}
	for j := range aux {
		if s.AAux.Get(j) {
			sa = append(sa, aux[j])
		}
		if s.BAux.Get(j) {
			sb = append(sb, aux[j])
		}
	}
	var err error
	if res.H, err = h.MSMG1(k.H, 0, a[:m-1]); err != nil {
		return res, err
	}
	if res.L, err = h.MSMG1(k.L, 0, aux); err != nil {
		return res, err
	}
	if res.A, err = h.MSMG1(k.A, 0, sa); err != nil {
		return res, err
	}
	if res.B1, err = h.MSMG1(k.BG1, 0, sb); err != nil {
		return res, err
	}
	res.B2, err = h.MSMG2(k.BG2, 0, sb)
	return res, err
}

// TestResidentCircuitMatchesProve: a proof through ResidentCircuit equals Prove's bytes
// for the same (r, s) and verifies; wrong shapes and assignments are refused; a backend
// without the capability answers ErrNoResidentPath.
func TestResidentCircuitMatchesProve(t *testing.T) {
	c := &r1cstest.Random{Seed: 11, Constraints: 150, Inputs: 3}
	f := setupCircuit(t, c, 21)
	rs, err := groth16.SampleRandomness(newSeeded(22))
	if err != nil {
		t.Fatal(err)
	}
	want := f.prove(t, f.w, &rs)

	if _, err := f.pk.LoadShape(f.shape); !errors.Is(err, groth16.ErrNoResidentPath) {
		t.Fatalf("plain CPU backend: got %v, want ErrNoResidentPath", err)
	}
	cb, _ := cpu.New(cpu.DefaultConfig())
	pk, err := groth16.NewProvingKey(hostEvaluator{cb}, f.pk.Params, f.shape.Counts())
	if err != nil {
		t.Fatal(err)
	}
	rc, err := pk.LoadShape(f.shape)
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	got, _, err := rc.Prove(f.w.Inputs, f.w.Aux, &rs)
	if err != nil {
		t.Fatal(err)
	}
	if got.Bytes() != want.Bytes() {
		t.Fatal("ResidentCircuit proof differs from Prove's for the same (r, s)")
	}
	if err := f.pk.Params.VK.Verify(&got, f.w.Inputs[1:]); err != nil {
		t.Fatalf("ResidentCircuit proof does not verify: %v", err)
	}
	if _, _, err := rc.Prove(f.w.Inputs[:1], f.w.Aux, &rs); err == nil {
		t.Error("assignment with missing inputs accepted")
	}
	// A backend that does not stream: ProveStreamed waits for the whole fill, then
	// proves as Prove; a failed fill is returned.
	fill := &wholeFill{}
	got, _, err = rc.ProveStreamed(f.w.Inputs, f.w.Aux, fill, &rs)
	if err != nil || got.Bytes() != want.Bytes() || fill.all != 1 {
		t.Fatalf("ProveStreamed without streaming: %v, %d waits for the whole fill, equal %v", err, fill.all, got.Bytes() == want.Bytes())
	}
	failed := errors.New("fill failed")
	if _, _, err := rc.ProveStreamed(f.w.Inputs, f.w.Aux, &wholeFill{err: failed}, &rs); !errors.Is(err, failed) {
		t.Errorf("ProveStreamed of a failed fill: %v", err)
	}
	other := recordShape(t, &r1cstest.Random{Seed: 12, Constraints: 151, Inputs: 3})
	if _, err := pk.LoadShape(other); !errors.Is(err, groth16.ErrShape) {
		t.Errorf("foreign shape: got %v, want ErrShape", err)
	}
}

func recordShape(t testing.TB, c *r1cstest.Random) *r1cs.Shape {
	rec := r1cs.NewRecorder(r1cs.Capacity{})
	if err := c.Synthesize(rec); err != nil {
		t.Fatal(err)
	}
	return rec.Finish()
}

// wholeFill is a finished fill (backend.AuxProgress) that counts the waits for all of it.
type wholeFill struct {
	all int
	err error
}

func (w *wholeFill) WaitAux(int) error { return w.err }
func (w *wholeFill) WaitAll() error    { w.all++; return w.err }
