package post

import (
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/snarkpipe/snarkpipe/prover/r1cs"
	"github.com/snarkpipe/snarkpipe/types"
	"github.com/snarkpipe/snarkpipe/types/vanilla"
)

func assertFillEqualsBuilder(t *testing.T, c *Circuit) {
	t.Helper()
	w := r1cs.NewWitness(r1cs.Capacity{})
	if err := c.Synthesize(w); err != nil {
		t.Fatal(err)
	}
	inputs := make([]fr.Element, len(w.Inputs))
	inputs[0].SetOne()
	aux := make([]fr.Element, len(w.Aux))
	for i := range aux {
		aux[i].SetUint64(0xdead)
	}
	if err := c.FillWitness(inputs, aux); err != nil {
		t.Fatal(err)
	}
	for i := range inputs {
		if inputs[i] != w.Inputs[i] {
			t.Fatalf("input %d differs", i)
		}
	}
	for i := range aux {
		if aux[i] != w.Aux[i] {
			t.Fatalf("aux %d of %d differs", i, len(aux))
		}
	}
	if err := c.FillWitness(inputs, aux[:len(aux)-len(c.Sectors)]); err == nil {
		t.Fatal("short aux buffer accepted")
	}
}

// TestFillWitnessEqualsBuilder: Winning and Window over the real Venus 2 KiB sectors and
// the Curio 32 GiB per-sector sub-circuit.
func TestFillWitnessEqualsBuilder(t *testing.T) {
	forRealPoStCircuits(t, func(c *Circuit) { assertFillEqualsBuilder(t, c) })
}

// forRealPoStCircuits runs check on the Winning and Window circuits of the Venus 2 KiB
// vanilla proofs, then on the Curio 32 GiB per-sector sub-circuit (the test skips there
// when the upstream fixtures are absent, after the Venus checks).
func forRealPoStCircuits(t *testing.T, check func(c *Circuit)) {
	t.Helper()
	for _, id := range []types.RegisteredPoStProof{0, 5} {
		info, err := types.PoStProof(id)
		if err != nil {
			t.Fatal(err)
		}
		proofs, _ := venusPoSt(t, info)
		c, err := FromVanilla(info, proofs, 0)
		if err != nil {
			t.Fatal(err)
		}
		check(c)
	}
	fx := loadCurio(t)
	c, err := FromVanilla(oneSectorInfo(fx.info), []*vanilla.FallbackPoStSectorProof{fx.proof}, 0)
	if err != nil {
		t.Fatal(err)
	}
	check(c)
}
