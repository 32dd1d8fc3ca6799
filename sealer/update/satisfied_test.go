package update_test

import (
	"errors"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/snarkpipe/snarkpipe/prover/r1cs"
	"github.com/snarkpipe/snarkpipe/sealer/update"
)

// TestReferenceUpdateSatisfies2KiB: a reference 2 KiB update's partition proof, through
// bincode and FromVanilla, satisfies the circuit, and the circuit's public inputs equal
// InputVector (upstream to_vec) in order.
func TestReferenceUpdateSatisfies2KiB(t *testing.T) {
	u := refUpdate(t, 0)
	c, _ := circuitOf(t, u, 0)
	cs := r1cs.NewChecker()
	if err := c.Synthesize(cs); err != nil {
		t.Fatal(err)
	}
	if err := cs.Err(); err != nil {
		t.Fatalf("reference update does not satisfy the circuit: %v", err)
	}
	want, err := c.InputVector(&c.Public)
	if err != nil {
		t.Fatal(err)
	}
	got := cs.Inputs()[1:]
	if len(got) != len(want) {
		t.Fatalf("%d inputs, want %d", len(got), len(want))
	}
	for i := range want {
		if !got[i].Equal(&want[i]) {
			t.Errorf("input %d = %s, want %s", i+1, got[i].String(), want[i].String())
		}
	}
}

// TestCorruptedWitnessUnsatisfied: changing one opened value makes the checker name a
// failing row (the circuit binds the leaves, the encoding and the public inputs).
func TestCorruptedWitnessUnsatisfied(t *testing.T) {
	u := refUpdate(t, 0)
	cases := map[string]func(c *update.Circuit){
		"leaf_d_new":  func(c *update.Circuit) { c.Challenges[3].LeafDNew.SetUint64(7) },
		"leaf_r_old":  func(c *update.Circuit) { c.Challenges[0].LeafROld.SetUint64(7) },
		"apex_leaf":   func(c *update.Circuit) { c.ApexLeaves[5].SetUint64(7) },
		"comm_r_new":  func(c *update.Circuit) { c.Public.CommRNew.SetUint64(7) },
		"r_new_path":  func(c *update.Circuit) { c.Challenges[9].PathRNew[1][2].SetUint64(7) },
		"d_apex_path": func(c *update.Circuit) { c.Challenges[1].PathDToApex[0].SetUint64(7) },
	}
	for name, corrupt := range cases {
		t.Run(name, func(t *testing.T) {
			c, _ := circuitOf(t, u, 0)
			corrupt(c)
			cs := r1cs.NewChecker()
			if err := c.Synthesize(cs); err != nil {
				t.Fatal(err)
			}
			var ue *r1cs.UnsatisfiedError
			if !errors.As(cs.Err(), &ue) {
				t.Fatalf("corrupted %s satisfied the circuit (err %v)", name, cs.Err())
			}
		})
	}
}

// TestFillWitnessEqualsWitnessBuilder: FillWitness writes exactly the assignment that
// Synthesize gives the witness builder.
func TestFillWitnessEqualsWitnessBuilder(t *testing.T) {
	u := refUpdate(t, 0)
	c, _ := circuitOf(t, u, 0)
	w := r1cs.NewWitness(r1cs.Capacity{})
	if err := c.Synthesize(w); err != nil {
		t.Fatal(err)
	}
	w.Finish()
	inputs := make([]fr.Element, len(w.Inputs))
	aux := make([]fr.Element, len(w.Aux))
	inputs[0].SetOne()
	if err := c.FillWitness(inputs, aux); err != nil {
		t.Fatal(err)
	}
	for i := range w.Inputs {
		if !inputs[i].Equal(&w.Inputs[i]) {
			t.Fatalf("input %d differs", i)
		}
	}
	for i := range w.Aux {
		if !aux[i].Equal(&w.Aux[i]) {
			t.Fatalf("aux %d differs", i)
		}
	}
	if err := c.FillWitness(inputs, aux[:len(aux)-1]); !errors.Is(err, update.ErrWitnessLayout) {
		t.Errorf("short aux buffer: %v, want ErrWitnessLayout", err)
	}
}

// TestCircuitsFromVanillaList: Circuits builds one circuit per partition with h = HDefault
// and refuses a wrong partition count or a non-canonical commitment.
func TestCircuitsFromVanillaList(t *testing.T) {
	u := refUpdate(t, 0)
	proofs, err := u.PartitionProofs()
	if err != nil {
		t.Fatal(err)
	}
	cs, err := update.Circuits(u.Info, u.CommROld, u.CommDNew, u.CommRNew, proofs)
	if err != nil || len(cs) != 1 {
		t.Fatalf("%d circuits, %v", len(cs), err)
	}
	if want := publicOf(t, u, 0); cs[0].Public != want {
		t.Errorf("public inputs %+v, want %+v", cs[0].Public, want)
	}
	if _, err := update.Circuits(u.Info, u.CommROld, u.CommDNew, u.CommRNew, append(proofs, proofs[0])); !errors.Is(err, update.ErrVanilla) {
		t.Errorf("2 proofs for 1 partition: %v", err)
	}
	bad := u.CommRNew
	bad[31] = 0xff
	if _, err := update.Circuits(u.Info, u.CommROld, u.CommDNew, bad, proofs); !errors.Is(err, update.ErrVanilla) {
		t.Errorf("non-canonical comm_r_new: %v", err)
	}
}
