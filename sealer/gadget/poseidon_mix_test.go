package gadget

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// poseidonTestCPUs are the CPU combinations chooseForms distinguishes. On a machine
// without the instructions gnark-crypto falls back to its generic loops, which must agree
// as well.
var poseidonTestCPUs = []poseidonCPU{{}, {avx512: true}, {avx512: true, ifma: true}}

// mixTestStates are random states of width t plus edge states (0, 1, q−1 and a mix).
func mixTestStates(rng *rand.Rand, t, n int) []poseidonState {
	var one, minusOne fr.Element
	one.SetOne()
	minusOne.Neg(&one)
	var zero, ones, minus, mixed poseidonState
	for i := range t {
		ones[i], minus[i] = one, minusOne
		if i%2 == 0 {
			mixed[i] = minusOne
		} else {
			mixed[i] = one
		}
	}
	out := []poseidonState{zero, ones, minus, mixed}
	for range n {
		var s poseidonState
		copy(s[:], poseidonRandom(rng, t))
		out = append(out, s)
	}
	return out
}

// TestPoseidonMixFormsMatchScalar compares each vector form of the products and of the
// S-boxes with the scalar Mul+Add reference, for every width, on random and edge states.
func TestPoseidonMixFormsMatchScalar(t *testing.T) {
	rng := rand.New(rand.NewPCG(71, 72))
	for _, arity := range PoseidonArities {
		c := poseidonForTest(t, arity)
		w := c.Width
		states := mixTestStates(rng, w, 16)
		for name, rows := range map[string][]fr.Element{"M": c.mdsFlat, "pre-sparse": c.preSparse} {
			cols := transposed(rows, w)
			for k, s := range states {
				want := s
				mulRowVector(&want, rows, w)
				got := s
				mulRowVectorColumns(&got, cols, w)
				if got != want {
					t.Fatalf("width %d %s state %d: columns form differs", w, name, k)
				}
				if w <= broadcastMaxWidth {
					got = s
					mulRowVectorBroadcast(&got, rows, w)
					if got != want {
						t.Fatalf("width %d %s state %d: broadcast form differs", w, name, k)
					}
				}
			}
		}
		for r := range c.sparse {
			for k, s := range states[:4+r%4] { // the edge states and a few random ones
				want, got := s, s
				mulSparse(&want, &c.sparse[r], w)
				mulSparseVector(&got, &c.sparse[r], w)
				if got != want {
					t.Fatalf("width %d sparse %d state %d: vector form differs", w, r, k)
				}
			}
		}
		for k, s := range states {
			var x2, x4 poseidonState
			got := s
			quinticVector(got[:w], x2[:w], x4[:w])
			for i := range w {
				var w2, w4, w5 fr.Element
				w2.Square(&s[i])
				w4.Square(&w2)
				w5 = s[i]
				quintic(&w5)
				if x2[i] != w2 || x4[i] != w4 || got[i] != w5 {
					t.Fatalf("width %d state %d element %d: vector S-box differs", w, k, i)
				}
			}
		}
	}
}

// TestPoseidonFormsAgree: instances built for every CPU combination hash and trace
// identically (Hash and WitnessAux, value for value).
func TestPoseidonFormsAgree(t *testing.T) {
	rng := rand.New(rand.NewPCG(73, 74))
	for _, arity := range PoseidonArities {
		c := poseidonForTest(t, arity)
		insts := make([]PoseidonConstants, len(poseidonTestCPUs))
		for i, has := range poseidonTestCPUs {
			insts[i] = *c
			insts[i].chooseForms(has)
		}
		for range 4 {
			in := poseidonRandom(rng, arity)
			var want fr.Element
			wantAux := make([]fr.Element, c.AuxCount())
			if _, err := insts[0].WitnessAux(wantAux, in); err != nil {
				t.Fatal(err)
			}
			if err := insts[0].Hash(&want, in); err != nil {
				t.Fatal(err)
			}
			for i := 1; i < len(insts); i++ {
				label := fmt.Sprintf("arity %d, cpu %+v", arity, poseidonTestCPUs[i])
				var got fr.Element
				if err := insts[i].Hash(&got, in); err != nil {
					t.Fatal(err)
				}
				if got != want {
					t.Fatalf("%s: Hash differs", label)
				}
				aux := make([]fr.Element, c.AuxCount())
				if _, err := insts[i].WitnessAux(aux, in); err != nil {
					t.Fatal(err)
				}
				for j := range aux {
					if aux[j] != wantAux[j] {
						t.Fatalf("%s: aux %d differs", label, j)
					}
				}
			}
		}
	}
}

// TestPoseidonWitnessAuxAllocationFree: the trace allocates nothing in any form.
func TestPoseidonWitnessAuxAllocationFree(t *testing.T) {
	for _, arity := range []int{2, 8, 11, 36} {
		c := poseidonForTest(t, arity)
		in := poseidonAscending(arity)
		aux := make([]fr.Element, c.AuxCount())
		if n := testing.AllocsPerRun(10, func() { _, _ = c.WitnessAux(aux, in) }); n != 0 {
			t.Errorf("arity %d: %v allocs per WitnessAux", arity, n)
		}
	}
}
