package post

import (
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/snarkpipe/snarkpipe/prover/r1cs"
	"github.com/snarkpipe/snarkpipe/types"
	"github.com/snarkpipe/snarkpipe/types/vanilla"
)

// builderAndBuffers synthesizes c into a witness builder (the reference assignment) and
// returns it with fill buffers of its sizes (inputs[0] = 1).
func builderAndBuffers(t *testing.T, c *Circuit) (w *r1cs.Witness, inputs, aux []fr.Element) {
	t.Helper()
	w = r1cs.NewWitness(r1cs.Capacity{})
	if err := c.Synthesize(w); err != nil {
		t.Fatal(err)
	}
	inputs = make([]fr.Element, len(w.Inputs))
	inputs[0].SetOne()
	return w, inputs, make([]fr.Element, len(w.Aux))
}

func assertFillEqualsBuilder(t *testing.T, c *Circuit) {
	t.Helper()
	w, inputs, aux := builderAndBuffers(t, c)
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

// TestFillWitnessProgress: the prefixes reported grow, end at the whole of aux, and
// hold their final values when reported (checked against a witness builder at every
// report, while later sectors are still being filled).
func TestFillWitnessProgress(t *testing.T) {
	forRealPoStCircuits(t, func(c *Circuit) {
		w, inputs, aux := builderAndBuffers(t, c)
		per := len(aux) / len(c.Sectors)
		last, reports := 0, 0
		err := c.FillWitnessProgress(inputs, aux, func(n int) {
			reports++
			if n <= last || n%per != 0 || n > len(aux) {
				t.Errorf("prefix %d reported after %d (sector size %d, aux %d)", n, last, per, len(aux))
			}
			for i := last; i < n && i < len(aux); i++ {
				if aux[i] != w.Aux[i] {
					t.Errorf("aux %d not final when prefix %d was reported", i, n)
					break
				}
			}
			last = n
		})
		if err != nil {
			t.Fatal(err)
		}
		if last != len(aux) || reports < 1 || reports > len(c.Sectors) {
			t.Fatalf("%d reports ending at %d of %d aux (%d sectors)", reports, last, len(aux), len(c.Sectors))
		}
	})
}
