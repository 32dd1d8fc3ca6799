package update_test

import (
	"flag"
	"runtime"
	"testing"
	"time"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/snarkpipe/snarkpipe/prover/r1cs"
	"github.com/snarkpipe/snarkpipe/sealer/refseal"
	"github.com/snarkpipe/snarkpipe/sealer/update"
	"github.com/snarkpipe/snarkpipe/types"
	"github.com/snarkpipe/snarkpipe/types/vanilla"
)

// synthCircuit builds partition k's circuit of a synthetic update of type id.
func synthCircuit(t *testing.T, id types.RegisteredUpdateProof, k int) *update.Circuit {
	t.Helper()
	info, err := types.UpdateProof(id)
	if err != nil {
		t.Fatal(err)
	}
	u, err := refseal.SynthUpdate(info, 3)
	if err != nil {
		t.Fatal(err)
	}
	p, err := u.PartitionProof(k)
	if err != nil {
		t.Fatal(err)
	}
	dec, err := vanilla.DecodeUpdatePartitionProofFor(info, vanilla.EncodeUpdatePartitionProof(p))
	if err != nil {
		t.Fatal(err)
	}
	c, err := update.FromVanilla(info, publicOf(t, u, k), dec)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func checkSatisfied(t *testing.T, c *update.Circuit) {
	t.Helper()
	start := time.Now()
	cs := r1cs.NewChecker()
	if err := c.Synthesize(cs); err != nil {
		t.Fatal(err)
	}
	if err := cs.Err(); err != nil {
		t.Fatalf("synthetic update does not satisfy the circuit: %v", err)
	}
	t.Logf("%s: %d rows satisfied in %v", c.ID(), cs.Sizes().NumConstraints, time.Since(start))
}

// TestSyntheticUpdateSatisfies2KiB: the block-constant synthetic update satisfies the 2 KiB
// circuit (the same generator makes the 32 GiB inputs).
func TestSyntheticUpdateSatisfies2KiB(t *testing.T) {
	checkSatisfied(t, synthCircuit(t, 0, 0))
}

// TestReferenceUpdateSatisfies8MiB: a reference 8 MiB update (dense trees) and partition 3
// satisfy the circuit. Not under -short (10M rows).
func TestReferenceUpdateSatisfies8MiB(t *testing.T) {
	if testing.Short() {
		t.Skip("8 MiB reference update + 10M-row check: run without -short")
	}
	u := refUpdate(t, 1)
	c, _ := circuitOf(t, u, 3)
	checkSatisfied(t, c)
}

// TestSyntheticUpdateSatisfies32GiB: a synthetic 32 GiB partition (partition 11) satisfies
// the full 81,049,499-row circuit. Needs -large (minutes, several GiB).
func TestSyntheticUpdateSatisfies32GiB(t *testing.T) {
	if !largeFlag() || testing.Short() {
		t.Skip("32 GiB synthetic partition check: run with -large")
	}
	checkSatisfied(t, synthCircuit(t, 3, 11))
}

// largeFlag reads -large, which counts_test.go (the internal test package) defines.
func largeFlag() bool {
	f := flag.Lookup("large")
	return f != nil && f.Value.String() == "true"
}

// TestFillWitness32GiB times FillWitness on a synthetic 32 GiB partition (the pipeline's
// synthesis step) and checks it fills exactly the counted aux. Needs -large.
func TestFillWitness32GiB(t *testing.T) {
	if !largeFlag() || testing.Short() {
		t.Skip("32 GiB FillWitness: run with -large")
	}
	c := synthCircuit(t, 3, 5)
	cs := r1cs.NewCounter()
	if err := c.Synthesize(cs); err != nil {
		t.Fatal(err)
	}
	sizes := cs.Sizes()
	inputs := make([]fr.Element, sizes.NumInputs)
	aux := make([]fr.Element, sizes.NumAux)
	inputs[0].SetOne()
	start := time.Now()
	if err := c.FillWitness(inputs, aux); err != nil {
		t.Fatal(err)
	}
	t.Logf("32 GiB FillWitness: %d aux in %v (GOMAXPROCS %d)", len(aux), time.Since(start), runtime.GOMAXPROCS(0))
	want, err := c.InputVector(&c.Public)
	if err != nil {
		t.Fatal(err)
	}
	for i := range want {
		if !inputs[i+1].Equal(&want[i]) {
			t.Errorf("input %d differs from InputVector", i+1)
		}
	}
}
