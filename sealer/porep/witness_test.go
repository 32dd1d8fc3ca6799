package porep

import (
	"math/rand/v2"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/snarkpipe/snarkpipe/prover/r1cs"
	"github.com/snarkpipe/snarkpipe/types"
)

// builderAssignment synthesizes c into the generic witness builder.
func builderAssignment(t testing.TB, c *Circuit) *r1cs.Witness {
	t.Helper()
	w := r1cs.NewWitness(r1cs.Capacity{})
	if err := c.Synthesize(w); err != nil {
		t.Fatal(err)
	}
	return w
}

// assertFillEqualsBuilder checks FillWitness against the witness builder, value by value.
func assertFillEqualsBuilder(t *testing.T, c *Circuit) {
	t.Helper()
	w := builderAssignment(t, c)
	inputs := make([]fr.Element, len(w.Inputs))
	inputs[0].SetOne()
	aux := make([]fr.Element, len(w.Aux))
	for i := range aux {
		aux[i].SetUint64(0xdead) // must all be overwritten
	}
	if err := c.FillWitness(inputs, aux); err != nil {
		t.Fatal(err)
	}
	for i := range inputs {
		if inputs[i] != w.Inputs[i] {
			t.Fatalf("input %d: fill %s, builder %s", i, inputs[i].String(), w.Inputs[i].String())
		}
	}
	for i := range aux {
		if aux[i] != w.Aux[i] {
			t.Fatalf("aux %d of %d: fill %s, builder %s", i, len(aux), aux[i].String(), w.Aux[i].String())
		}
	}
}

// TestFillWitnessEqualsBuilder2KiB: the fast fill of a real sealed 2 KiB partition equals
// the witness builder's assignment.
func TestFillWitnessEqualsBuilder2KiB(t *testing.T) {
	assertFillEqualsBuilder(t, sealed2KiBPartition(t))
}

// sealed2KiBPartition is partition 0 of a 2 KiB sector sealed by the test sealer.
func sealed2KiBPartition(t *testing.T) *Circuit {
	t.Helper()
	info, err := types.SealProof(5)
	if err != nil {
		t.Fatal(err)
	}
	c, err := FromC1(sealTestSector(t, info, rand.New(rand.NewPCG(3, 3))).c1(t), 0)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// randomize gives every value of c a random field element and every index a random
// in-range value (the system is not satisfied; only assignments are compared).
func randomize(c *Circuit, rng *rand.Rand) {
	el := func(x *fr.Element) { x.SetUint64(rng.Uint64()); x.Square(x); x.Square(x) }
	path := func(p *Path) {
		p.Index = rng.Uint64N(c.Nodes)
		for _, lv := range p.Siblings {
			for j := range lv {
				el(&lv[j])
			}
		}
	}
	for _, x := range []*fr.Element{&c.ReplicaID, &c.CommD, &c.CommR, &c.CommRLast, &c.CommC} {
		el(x)
	}
	for i := range c.Challenges {
		ch := &c.Challenges[i]
		ch.Node = rng.Uint64N(c.Nodes)
		el(&ch.DataLeaf)
		path(&ch.CommDPath)
		path(&ch.CommRLastPath)
		path(&ch.CommCPath)
		for _, col := range append(ch.DrgParents[:], ch.ExpParents[:]...) {
			for j := range col.Rows {
				el(&col.Rows[j])
			}
			path(&col.Path)
		}
	}
}

// TestFillWitnessEqualsBuilder32GiB compares on the first two challenges of a 32 GiB
// partition (11 layers, 8-8-0 trees, depth-30 tree D) with random values: 14.5 M rows,
// about 1.5 GiB for the builder, so not under -short.
func TestFillWitnessEqualsBuilder32GiB(t *testing.T) {
	if testing.Short() {
		t.Skip("32 GiB shape witness comparison: 14.5 M rows, ~1.5 GiB; not under -short")
	}
	cfg := sealConfig(t, 8)
	cfg.Challenges = 2
	c, err := Blank(cfg)
	if err != nil {
		t.Fatal(err)
	}
	randomize(c, rand.New(rand.NewPCG(32, 32)))
	assertFillEqualsBuilder(t, c)
}

// TestFillWitnessRejectsBadBuffers: wrong buffer sizes are errors, not panics.
func TestFillWitnessRejectsBadBuffers(t *testing.T) {
	cfg := stackedTestConfig(8, 0, 0)
	c, err := Blank(cfg)
	if err != nil {
		t.Fatal(err)
	}
	nAux := builderAssignment(t, c).Sizes().NumAux
	for _, sz := range [][2]int{{cfg.NumInputs() - 1, nAux}, {cfg.NumInputs(), nAux - 1}, {cfg.NumInputs(), nAux + 1}, {cfg.NumInputs(), 10}} {
		if err := c.FillWitness(make([]fr.Element, sz[0]), make([]fr.Element, sz[1])); err == nil {
			t.Errorf("buffers %v accepted", sz)
		}
	}
}
