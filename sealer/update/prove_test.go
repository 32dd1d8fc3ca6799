package update_test

import (
	"errors"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/snarkpipe/snarkpipe/prover/backend/cpu"
	"github.com/snarkpipe/snarkpipe/prover/groth16"
	"github.com/snarkpipe/snarkpipe/prover/r1cs"
	"github.com/snarkpipe/snarkpipe/sealer/update"
)

type seeded struct{ rng *rand.ChaCha8 }

func (s *seeded) Read(p []byte) (int, error) { return s.rng.Read(p) }

// TestProve2KiBDevParams proves a reference 2 KiB update with dev parameters on the CPU
// backend, from the recorded shape and FillWitness (the pipeline's path), and verifies the
// proof against InputVector; a wrong public input is refused. Dev setup and proving take
// minutes on two cores, so it is skipped under -short.
func TestProve2KiBDevParams(t *testing.T) {
	if testing.Short() {
		t.Skip("2 KiB dev setup + proof (1.7M rows): minutes; run without -short")
	}
	u := refUpdate(t, 0)
	c, _ := circuitOf(t, u, 0)

	start := time.Now()
	blank, err := update.Blank(c.Config)
	if err != nil {
		t.Fatal(err)
	}
	rec := r1cs.NewRecorder(r1cs.Capacity{})
	if err := blank.Synthesize(rec); err != nil {
		t.Fatal(err)
	}
	shape := rec.Finish()
	params, err := groth16.DevSetup(shape, &seeded{rand.NewChaCha8([32]byte{15})})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("recorded and dev setup in %v", time.Since(start))
	be, err := cpu.New(cpu.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	pk, err := groth16.NewProvingKey(be, params, shape.Counts())
	if err != nil {
		t.Fatal(err)
	}
	defer pk.Close()

	inputs := make([]fr.Element, shape.NumInputs)
	aux := make([]fr.Element, shape.NumAux)
	inputs[0].SetOne()
	if err := c.FillWitness(inputs, aux); err != nil {
		t.Fatal(err)
	}
	w := r1cs.NewWitness(r1cs.Capacity{})
	if err := c.Synthesize(w); err != nil {
		t.Fatal(err)
	}
	w.Finish()
	as := groth16.AssignmentOf(w)
	for i := range aux {
		if !aux[i].Equal(&w.Aux[i]) {
			t.Fatalf("FillWitness aux %d differs from the witness builder", i)
		}
	}
	start = time.Now()
	proof, _, err := pk.Prove(&shape.Density, as, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("proved in %v", time.Since(start))
	public, err := c.InputVector(&c.Public)
	if err != nil {
		t.Fatal(err)
	}
	if err := params.VK.Verify(&proof, public); err != nil {
		t.Fatalf("2 KiB update proof does not verify: %v", err)
	}
	public[2].SetUint64(1) // comm_d_new
	if err := params.VK.Verify(&proof, public); !errors.Is(err, groth16.ErrInvalidProof) {
		t.Errorf("wrong comm_d_new: %v, want ErrInvalidProof", err)
	}
}
