package groth16_test

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/snarkpipe/snarkpipe/prover"
	"github.com/snarkpipe/snarkpipe/prover/backend/cpu"
	"github.com/snarkpipe/snarkpipe/prover/groth16"
	"github.com/snarkpipe/snarkpipe/prover/r1cs"
	"github.com/snarkpipe/snarkpipe/prover/r1cs/r1cstest"
)

// seeded is a deterministic io.Reader for reproducible setups and blindings.
type seeded struct{ rng *rand.ChaCha8 }

func newSeeded(seed byte) *seeded { return &seeded{rand.NewChaCha8([32]byte{seed})} }

func (s *seeded) Read(p []byte) (int, error) { return s.rng.Read(p) }

type fixture struct {
	shape *r1cs.Shape
	pk    *groth16.ProvingKey
	w     *r1cs.Witness
}

func setupCircuit(t testing.TB, c prover.Circuit, seed byte) *fixture {
	t.Helper()
	rec := r1cs.NewRecorder(r1cs.Capacity{})
	if err := c.Synthesize(rec); err != nil {
		t.Fatal(err)
	}
	shape := rec.Finish()
	params, err := groth16.DevSetup(shape, newSeeded(seed))
	if err != nil {
		t.Fatal(err)
	}
	be, _ := cpu.New(cpu.DefaultConfig())
	pk, err := groth16.NewProvingKey(be, params, shape.Counts())
	if err != nil {
		t.Fatal(err)
	}
	return &fixture{shape: shape, pk: pk, w: witnessOf(t, c)}
}

func witnessOf(t testing.TB, c prover.Circuit) *r1cs.Witness {
	w := r1cs.NewWitness(r1cs.Capacity{})
	if err := c.Synthesize(w); err != nil {
		t.Fatal(err)
	}
	w.Finish()
	return w
}

func (f *fixture) prove(t testing.TB, w *r1cs.Witness, rs *groth16.Randomness) groth16.Proof {
	t.Helper()
	as := groth16.AssignmentOf(w)
	// The prover clobbers the row vectors: hand it copies so the witness stays reusable.
	as.A, as.B, as.C = clone(as.A), clone(as.B), clone(as.C)
	p, _, err := f.pk.Prove(&f.shape.Density, as, rs)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func clone(v []fr.Element) []fr.Element { return append([]fr.Element(nil), v...) }

func testCircuits() map[string]prover.Circuit {
	return map[string]prover.Circuit{
		// aux variables bound only through C: absent from a and b
		"unconstrained-in-B": &r1cstest.Random{Seed: 11, Constraints: 300, Inputs: 2, Unused: 40},
		"many-inputs":        &r1cstest.Random{Seed: 12, Constraints: 200, Inputs: 60},
		// 1021 rows + 3 inputs = 1024 QAP rows: the domain is full
		"rows+inputs=2^10": &r1cstest.Random{Seed: 13, Constraints: 1021, Inputs: 2},
		"chain":            &r1cstest.Chain{N: 500},
	}
}

func TestProveVerifyRoundTrip(t *testing.T) {
	for name, c := range testCircuits() {
		t.Run(name, func(t *testing.T) {
			f := setupCircuit(t, c, 1)
			if name == "rows+inputs=2^10" && f.shape.Rows() != f.shape.DomainSize() {
				t.Fatalf("fixture wrong: %d rows, domain %d", f.shape.Rows(), f.shape.DomainSize())
			}
			vk := &f.pk.Params.VK
			public := f.w.Inputs[1:]
			p := f.prove(t, f.w, nil)
			if err := vk.Verify(&p, public); err != nil {
				t.Fatal(err)
			}
			p2 := f.prove(t, f.w, nil)
			if err := vk.VerifyBatch([]groth16.Proof{p, p2}, [][]fr.Element{public, public}); err != nil {
				t.Fatal(err)
			}
			if len(public) > 0 {
				bad := clone(public)
				bad[len(bad)-1].SetUint64(12345)
				if err := vk.Verify(&p, bad); !errors.Is(err, groth16.ErrInvalidProof) {
					t.Fatalf("wrong public input accepted: %v", err)
				}
				if err := vk.VerifyBatch([]groth16.Proof{p, p2}, [][]fr.Element{public, bad}); !errors.Is(err, groth16.ErrInvalidProof) {
					t.Fatalf("batch with a wrong input accepted: %v", err)
				}
			}
			if err := vk.Verify(&p, append(clone(public), fr.One())); err == nil {
				t.Fatal("extra public input accepted")
			}
		})
	}
}

func TestFixedRandomnessIsDeterministic(t *testing.T) {
	f := setupCircuit(t, &r1cstest.Random{Seed: 5, Constraints: 100, Inputs: 3}, 2)
	rs, _ := groth16.SampleRandomness(newSeeded(9))
	a, b := f.prove(t, f.w, &rs), f.prove(t, f.w, &rs)
	if a.Bytes() != b.Bytes() {
		t.Fatal("same r, s gave different proofs")
	}
	other, _ := groth16.SampleRandomness(newSeeded(10))
	if c := f.prove(t, f.w, &other); c.Bytes() == a.Bytes() {
		t.Fatal("different r, s gave the same proof")
	}
}

func TestTamperedProofsRejected(t *testing.T) {
	f := setupCircuit(t, &r1cstest.Random{Seed: 6, Constraints: 64, Inputs: 2}, 3)
	vk := &f.pk.Params.VK
	public := f.w.Inputs[1:]
	p := f.prove(t, f.w, nil)
	good := p.Bytes()
	for i := 0; i < len(good); i++ {
		bad := good
		bad[i] ^= 1 << (i % 8)
		q, err := groth16.DecodeProof(bad[:])
		if err != nil {
			continue // not a valid encoding: rejected at decode
		}
		if err := vk.Verify(&q, public); err == nil {
			t.Fatalf("proof with byte %d flipped verified", i)
		}
	}
	// A valid proof of another circuit (same sizes, other setup) fails against this key.
	g := setupCircuit(t, &r1cstest.Random{Seed: 6, Constraints: 64, Inputs: 2}, 4)
	q := g.prove(t, g.w, nil)
	if err := vk.Verify(&q, public); !errors.Is(err, groth16.ErrInvalidProof) {
		t.Fatalf("proof for another key accepted: %v", err)
	}
}

func TestParamsFileRoundTripProves(t *testing.T) {
	f := setupCircuit(t, &r1cstest.Random{Seed: 8, Constraints: 80, Inputs: 4}, 5)
	var buf bytes.Buffer
	if _, err := f.pk.Params.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	if _, err := groth16.ParseParams(buf.Bytes(), groth16.ReadOptions{}); !errors.Is(err, groth16.ErrDevParams) {
		t.Fatalf("dev params accepted without AllowDev: %v", err)
	}
	back, err := groth16.ParseParams(buf.Bytes(), groth16.ReadOptions{AllowDev: true})
	if err != nil {
		t.Fatal(err)
	}
	if !back.Equal(f.pk.Params) || !back.Dev {
		t.Fatal("params changed through write/read")
	}
	be, _ := cpu.New(cpu.DefaultConfig())
	pk, err := groth16.NewProvingKey(be, back, f.shape.Counts())
	if err != nil {
		t.Fatal(err)
	}
	as := groth16.AssignmentOf(f.w)
	p, _, err := pk.Prove(&f.shape.Density, as, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := back.VK.Verify(&p, f.w.Inputs[1:]); err != nil {
		t.Fatal(err)
	}
}

func TestProveRejectsMismatchedWitness(t *testing.T) {
	f := setupCircuit(t, &r1cstest.Random{Seed: 9, Constraints: 50, Inputs: 1}, 6)
	other := witnessOf(t, &r1cstest.Random{Seed: 9, Constraints: 51, Inputs: 1})
	if _, _, err := f.pk.Prove(&f.shape.Density, groth16.AssignmentOf(other), nil); err == nil {
		t.Fatal("witness of another size accepted")
	}
	counts := f.shape.Counts()
	counts.NumAux++
	be, _ := cpu.New(cpu.DefaultConfig())
	if _, err := groth16.NewProvingKey(be, f.pk.Params, counts); err == nil {
		t.Fatal("params accepted for a different shape")
	}
}

func TestProveBatch(t *testing.T) {
	f := setupCircuit(t, &r1cstest.Random{Seed: 21, Constraints: 120, Inputs: 3}, 7)
	other := &r1cstest.Random{Seed: 21, Constraints: 120, Inputs: 3}
	w2 := witnessOf(t, other)
	as := []groth16.Assignment{groth16.AssignmentOf(witnessOf(t, other)), groth16.AssignmentOf(w2)}
	proofs, _, err := f.pk.ProveBatch(&f.shape.Density, as, nil)
	if err != nil {
		t.Fatal(err)
	}
	public := [][]fr.Element{w2.Inputs[1:], w2.Inputs[1:]}
	if err := f.pk.Params.VK.VerifyBatch(proofs, public); err != nil {
		t.Fatal(err)
	}
	if _, _, err := f.pk.ProveBatch(&f.shape.Density, as, make([]groth16.Randomness, 1)); err == nil {
		t.Fatal("randomness count mismatch accepted")
	}
}

func BenchmarkProveChain2p16(b *testing.B) {
	c := &r1cstest.Chain{N: 1<<16 - 4}
	f := setupCircuit(b, c, 1)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		f.prove(b, f.w, nil)
	}
}
