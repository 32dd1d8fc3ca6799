package update_test

import (
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/snarkpipe/snarkpipe/prover/r1cs"
	"github.com/snarkpipe/snarkpipe/sealer/update"
)

func record(t *testing.T, c *update.Circuit) *r1cs.Shape {
	t.Helper()
	rec := r1cs.NewRecorder(r1cs.Capacity{})
	if err := c.Synthesize(rec); err != nil {
		t.Fatal(err)
	}
	return rec.Finish()
}

// TestShapeIndependentOfWitnessAndFillWitnessSatisfies is the pipeline's path at 2 KiB:
// the blank circuit and a real one record the same R1CS (digest), and the FillWitness
// assignment evaluated through the recorded matrices satisfies A·z ∘ B·z = C·z on every
// row. Not under -short (two 1.7M-row recordings).
func TestShapeIndependentOfWitnessAndFillWitnessSatisfies(t *testing.T) {
	if testing.Short() {
		t.Skip("two 2 KiB recordings: run without -short")
	}
	u := refUpdate(t, 0)
	c, _ := circuitOf(t, u, 0)
	blank, err := update.Blank(c.Config)
	if err != nil {
		t.Fatal(err)
	}
	shape := record(t, blank)
	if real := record(t, c); real.Digest != shape.Digest {
		t.Fatal("the real circuit records another R1CS than the blank one")
	}
	z := make([]fr.Element, shape.NumInputs+shape.NumAux)
	z[0].SetOne()
	if err := c.FillWitness(z[:shape.NumInputs], z[shape.NumInputs:]); err != nil {
		t.Fatal(err)
	}
	rows := shape.Rows()
	a, b, cc := make([]fr.Element, rows), make([]fr.Element, rows), make([]fr.Element, rows)
	if err := shape.Eval(z, a, b, cc, 0); err != nil {
		t.Fatal(err)
	}
	for j := range rows {
		var ab fr.Element
		ab.Mul(&a[j], &b[j])
		if !ab.Equal(&cc[j]) {
			t.Fatalf("row %d unsatisfied by the FillWitness assignment", j)
		}
	}
}
