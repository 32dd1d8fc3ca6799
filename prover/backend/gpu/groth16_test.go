package gpu

import (
	"math/rand/v2"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/snarkpipe/snarkpipe/prover/backend/cpu"
	"github.com/snarkpipe/snarkpipe/prover/groth16"
	"github.com/snarkpipe/snarkpipe/prover/r1cs"
	"github.com/snarkpipe/snarkpipe/prover/r1cs/r1cstest"
)

type chachaReader struct{ rng *rand.ChaCha8 }

func (s chachaReader) Read(p []byte) (int, error) { return s.rng.Read(p) }

// TestGroth16ProofMatchesCPU proves one circuit with the CPU and the GPU backend from the
// same dev parameters and the same blinding (r, s): the 192-byte proofs must be equal, and
// the GPU proof must verify. 2^20 rows (exactly the 2^20 domain: a chain of 2^20 − 3
// squarings plus the input rows) without -short; 2^10 with it. Without -short this spends
// minutes in DevSetup on the CPU.
func TestGroth16ProofMatchesCPU(t *testing.T) {
	b := testBackend(t)
	rows := 1 << 20
	if testing.Short() {
		rows = 1 << 10
	}
	c := &r1cstest.Chain{N: rows - 3}
	rec := r1cs.NewRecorder(r1cs.Capacity{})
	if err := c.Synthesize(rec); err != nil {
		t.Fatal(err)
	}
	shape := rec.Finish()
	if shape.Rows() < rows {
		t.Fatalf("circuit has %d rows, want >= %d", shape.Rows(), rows)
	}
	params, err := groth16.DevSetup(shape, chachaReader{rand.NewChaCha8([32]byte{1})})
	if err != nil {
		t.Fatal(err)
	}
	w := r1cs.NewWitness(r1cs.Capacity{})
	if err := c.Synthesize(w); err != nil {
		t.Fatal(err)
	}
	w.Finish()
	rs, err := groth16.SampleRandomness(chachaReader{rand.NewChaCha8([32]byte{2})})
	if err != nil {
		t.Fatal(err)
	}
	clone := func(v []fr.Element) []fr.Element { return append([]fr.Element(nil), v...) }
	prove := func(name string, pk *groth16.ProvingKey) groth16.Proof {
		as := groth16.AssignmentOf(w)
		as.A, as.B, as.C = clone(as.A), clone(as.B), clone(as.C)
		p, tm, err := pk.Prove(&shape.Density, as, &rs)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %d rows, domain %d: total %v (quotient %v, H %v, L %v, A %v, B1 %v, B2 %v)", name, shape.Rows(),
			shape.DomainSize(), tm.Total, tm.Quotient, tm.MSMH, tm.MSML, tm.MSMA, tm.MSMB1, tm.MSMB2)
		return p
	}
	cb, err := cpu.New(cpu.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	pkCPU, err := groth16.NewProvingKey(cb, params, shape.Counts())
	if err != nil {
		t.Fatal(err)
	}
	pkGPU, err := groth16.NewProvingKey(b, params, shape.Counts())
	if err != nil {
		t.Fatal(err)
	}
	pg := prove("gpu", pkGPU)
	pc := prove("cpu", pkCPU)
	if pg.Bytes() != pc.Bytes() {
		t.Fatal("GPU and CPU proofs differ for the same parameters, witness and (r, s)")
	}
	if err := params.VK.Verify(&pg, w.Inputs[1:]); err != nil {
		t.Fatalf("GPU proof does not verify: %v", err)
	}
}
