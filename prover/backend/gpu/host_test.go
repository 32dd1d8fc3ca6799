package gpu

import (
	"slices"
	"testing"

	"github.com/snarkpipe/snarkpipe/prover/r1cs"
	"github.com/snarkpipe/snarkpipe/prover/r1cs/r1cstest"
)

// TestTransposeTwiceIsIdentity: the host transposition behind the device setup's u, v, w
// products gives the original CSR back when applied twice (rows list columns increasing),
// and keeps every term's coefficient slot. No GPU needed.
func TestTransposeTwiceIsIdentity(t *testing.T) {
	rec := r1cs.NewRecorder(r1cs.Capacity{})
	if err := (&r1cstest.Random{Seed: 3, Constraints: 400, Inputs: 5, Unused: 7}).Synthesize(rec); err != nil {
		t.Fatal(err)
	}
	s := rec.Finish()
	vars := s.NumInputs + s.NumAux
	for name, m := range map[string]*r1cs.Matrix{"A": &s.A, "B": &s.B, "C": &s.C} {
		rp, col, coeff := transpose(m, vars)
		back := r1cs.Matrix{RowPtr: rp, Col: col, Coeff: coeff}
		rp2, col2, coeff2 := transpose(&back, s.Rows())
		if !slices.Equal(rp2, m.RowPtr) || !slices.Equal(col2, m.Col) || !slices.Equal(coeff2, m.Coeff) {
			t.Fatalf("side %s: transposing twice changed the matrix", name)
		}
		if int(rp[vars]) != len(m.Col) {
			t.Fatalf("side %s: transposed matrix has %d terms, want %d", name, rp[vars], len(m.Col))
		}
	}
}

// TestDensityIndicesAndRanks: the z index lists follow the parameter layout (all inputs,
// then A-dense aux; B-dense inputs, then B-dense aux) and word ranks count earlier bits.
func TestDensityIndicesAndRanks(t *testing.T) {
	rec := r1cs.NewRecorder(r1cs.Capacity{})
	if err := (&r1cstest.Random{Seed: 4, Constraints: 200, Inputs: 3, Unused: 11}).Synthesize(rec); err != nil {
		t.Fatal(err)
	}
	s := rec.Finish()
	a, b := densityIndices(s)
	c := s.Counts()
	if len(a) != c.NumInputs+c.AAux || len(b) != c.BInput+c.BAux {
		t.Fatalf("index lists of %d and %d, want %d and %d", len(a), len(b), c.NumInputs+c.AAux, c.BInput+c.BAux)
	}
	for i := 0; i < s.NumInputs; i++ {
		if a[i] != uint32(i) {
			t.Fatalf("a[%d] = %d, want input %d", i, a[i], i)
		}
	}
	for _, l := range [][]uint32{a, b} {
		if !slices.IsSorted(l) {
			t.Fatal("index list not in variable order")
		}
	}
	for _, j := range a[s.NumInputs:] {
		if !s.AAux.Get(int(j) - s.NumInputs) {
			t.Fatalf("a selects aux %d, which is not in A", int(j)-s.NumInputs)
		}
	}
	got := wordRanks([]uint64{0b1011, 0, 1 << 63, 7})
	if !slices.Equal(got, []uint32{0, 3, 3, 4}) {
		t.Fatalf("wordRanks = %v", got)
	}
}
