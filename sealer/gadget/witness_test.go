package gadget

import (
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/snarkpipe/snarkpipe/prover/r1cs"
)

// porCircuit builds a SHA-256 PoR of two levels and a Poseidon 8-8-2 PoR in one system,
// with real paths, so the test covers every gadget of this package together.
func porCircuit(t *testing.T) func(cs r1cs.ConstraintSystem) {
	shaShape := TreeShape{TreeSha256, 2, 0, 0}
	shaLeaves := []fr.Element{randFr(), randFr(), randFr(), randFr()}
	posShape := TreeShape{TreePoseidon, 8, 8, 2}
	posLeaves := make([]fr.Element, 128)
	for i := range posLeaves {
		posLeaves[i] = randFr()
	}
	sha := buildTree(t, shaShape, 2, shaLeaves)
	pos := buildTree(t, posShape, 1, posLeaves)
	return func(cs r1cs.ConstraintSystem) {
		p := PoR{Shape: shaShape, Leaf: RootVal(shaLeaves[2]), LeafIndex: 2, Path: sha.path(2), Root: RootVal(sha.root()), Private: true}
		if err := p.Synthesize(cs); err != nil {
			t.Fatal(err)
		}
		q := PoR{Shape: posShape, Leaf: RootVal(posLeaves[93]), LeafIndex: 93, Path: pos.path(93), Root: RootVal(pos.root())}
		if err := q.Synthesize(cs); err != nil {
			t.Fatal(err)
		}
	}
}

// The witness builder's row values equal the recorded matrices applied to its
// assignment (so the recorded shape and the witness come from one code path), and every
// row holds.
func TestWitnessMatchesRecordedShape(t *testing.T) {
	build := porCircuit(t)
	shape := mustSynth(t, build)
	w := r1cs.NewWitness(r1cs.Capacity{})
	build(w)
	w.Finish()
	if err := w.Check(shape.Sizes); err != nil {
		t.Fatal(err)
	}
	rows := shape.Rows()
	a, b, c := make([]fr.Element, rows), make([]fr.Element, rows), make([]fr.Element, rows)
	if err := shape.Eval(w.Assignment(), a, b, c, 0); err != nil {
		t.Fatal(err)
	}
	for j := range rows {
		if a[j] != w.A[j] || b[j] != w.B[j] || c[j] != w.C[j] {
			t.Fatalf("row %d: recorded evaluation differs from the witness builder", j)
		}
		var ab fr.Element
		ab.Mul(&a[j], &b[j])
		if ab != c[j] {
			t.Fatalf("row %d unsatisfied", j)
		}
	}
}

// Witness generation for one tree-D node through the gadget path (the same code that
// records the shape).
func BenchmarkSha256NodeWitness(b *testing.B) {
	x, y := randFr(), randFr()
	w := r1cs.NewWitness(r1cs.Capacity{Aux: 46000, Constraints: 46000, Inputs: 1})
	b.ReportAllocs()
	for b.Loop() {
		w.Aux, w.A, w.B, w.C = w.Aux[:0], w.A[:0], w.B[:0], w.C[:0]
		if _, err := Sha256NodeCircuit(w, AllocNum(w, x), AllocNum(w, y)); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSha256NodeCount(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		cnt := r1cs.NewCounter()
		if _, err := Sha256NodeCircuit(cnt, AllocNum(cnt, fr.Element{}), AllocNum(cnt, fr.Element{})); err != nil {
			b.Fatal(err)
		}
	}
}

// valuesCS keeps only the assignment and declares so; it fails on any Enforce.
type valuesCS struct {
	inputs, aux []fr.Element
	enforced    int
}

func (v *valuesCS) ValuesOnly() bool { return true }
func (v *valuesCS) Alloc(x fr.Element) r1cs.Variable {
	v.aux = append(v.aux, x)
	return r1cs.Aux(len(v.aux) - 1)
}
func (v *valuesCS) AllocInput(x fr.Element) r1cs.Variable {
	v.inputs = append(v.inputs, x)
	return r1cs.Input(len(v.inputs) - 1)
}
func (v *valuesCS) Enforce(string, *r1cs.LC, *r1cs.LC, *r1cs.LC) { v.enforced++ }
func (v *valuesCS) Push(string)                                  {}
func (v *valuesCS) Pop()                                         {}

// A values-only system gets the same assignment, in the same order, as the witness
// builder, and no rows: neither from the SHA-256 gadgets nor from a Merkle path of
// Poseidon hashes.
func TestValuesOnlyAssignment(t *testing.T) {
	shaOnly := &valuesCS{inputs: []fr.Element{r1cs.CoeffOne()}}
	if _, err := Sha256NodeCircuit(shaOnly, AllocNum(shaOnly, randFr()), AllocNum(shaOnly, randFr())); err != nil {
		t.Fatal(err)
	}
	PackIntoInputs(shaOnly, []Boolean{AllocBit(shaOnly, true).Is()})
	if shaOnly.enforced != 0 {
		t.Fatalf("values-only system received %d rows", shaOnly.enforced)
	}

	build := porCircuit(t)
	w := r1cs.NewWitness(r1cs.Capacity{})
	build(w)
	v := &valuesCS{inputs: []fr.Element{r1cs.CoeffOne()}}
	build(v)
	if v.enforced != 0 || len(w.Aux) == 0 {
		t.Fatalf("values-only system received %d rows (the witness builder %d aux)", v.enforced, len(w.Aux))
	}
	if len(v.aux) != len(w.Aux) || len(v.inputs) != len(w.Inputs) {
		t.Fatalf("values-only sizes %d/%d, witness %d/%d", len(v.aux), len(v.inputs), len(w.Aux), len(w.Inputs))
	}
	for i := range v.aux {
		if v.aux[i] != w.Aux[i] {
			t.Fatalf("aux %d differs", i)
		}
	}
	for i := range v.inputs {
		if v.inputs[i] != w.Inputs[i] {
			t.Fatalf("input %d differs", i)
		}
	}
}

// Aux-only witness generation for one tree-D node: what a prover that evaluates A·z,
// B·z, C·z from a recorded shape needs per node.
func BenchmarkSha256NodeValuesOnly(b *testing.B) {
	x, y := randFr(), randFr()
	v := &valuesCS{aux: make([]fr.Element, 0, 46000)}
	b.ReportAllocs()
	for b.Loop() {
		v.aux = v.aux[:0]
		if _, err := Sha256NodeCircuit(v, AllocNum(v, x), AllocNum(v, y)); err != nil {
			b.Fatal(err)
		}
	}
}
