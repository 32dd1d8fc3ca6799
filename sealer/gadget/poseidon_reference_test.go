package gadget

import (
	"math/rand/v2"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// referencePoseidon is the textbook permutation (neptune's hash_correct), written
// independently of the optimized schedule: every round adds its t uncompressed Grain
// constants, applies x^5 (to all elements in full rounds, element 0 in partial rounds) and
// multiplies by the dense M.
func referencePoseidon(c *PoseidonConstants, preimage []fr.Element) fr.Element {
	state := make([]fr.Element, c.Width)
	state[0] = c.DomainTag
	copy(state[1:], preimage)
	rounds := c.FullRounds + c.PartialRounds
	half := c.FullRounds / 2
	for r := range rounds {
		keys := c.RoundConstants[r*c.Width : (r+1)*c.Width]
		for i := range state {
			state[i].Add(&state[i], &keys[i])
		}
		full := r < half || r >= half+c.PartialRounds
		for i := range state {
			if full || i == 0 {
				quintic(&state[i])
			}
		}
		state = c.mds.applyRow(state)
	}
	return state[1]
}

// TestPoseidonOptimizedEqualsReference is spec §11.2d on random preimages, every arity.
func TestPoseidonOptimizedEqualsReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	trials := 20
	if testing.Short() {
		trials = 3
	}
	for _, arity := range PoseidonArities {
		c := poseidonForTest(t, arity)
		for range trials {
			in := poseidonRandom(rng, arity)
			var got fr.Element
			if err := c.Hash(&got, in); err != nil {
				t.Fatal(err)
			}
			if want := referencePoseidon(c, in); !got.Equal(&want) {
				t.Fatalf("arity %d: optimized %s != reference %s", arity, got.String(), want.String())
			}
		}
	}
}

// TestPoseidonMatrices checks the algebra the optimized form relies on: M is symmetric,
// M·M⁻¹ = I, and the pre-sparse matrix times the sparse chain equals M^(RP+1) (every
// mixing step from the one before the partial rounds to the last partial round).
func TestPoseidonMatrices(t *testing.T) {
	for _, arity := range []int{2, 8, 11} {
		c := poseidonForTest(t, arity)
		n := c.Width
		for i := range n {
			for j := range n {
				if !c.mds[i][j].Equal(&c.mds[j][i]) {
					t.Fatalf("arity %d: M not symmetric at (%d,%d)", arity, i, j)
				}
			}
		}
		inv, err := c.mds.inverse()
		if err != nil {
			t.Fatal(err)
		}
		if !poseidonMatricesEqual(c.mds.mul(inv), identityMatrix(n)) {
			t.Fatalf("arity %d: M·M⁻¹ ≠ I", arity)
		}
		pre := newFrMatrix(n)
		for i := range n {
			copy(pre[i], c.preSparse[i*n:(i+1)*n])
		}
		// Row-vector convention: s ← s·A then s·B is s·(A·B).
		prod := pre
		want := c.mds
		for _, s := range c.sparse {
			prod = prod.mul(s.toDense())
			want = want.mul(c.mds)
		}
		if !poseidonMatricesEqual(prod, want) {
			t.Fatalf("arity %d: pre_sparse·Π sparse ≠ M^(RP+1)", arity)
		}
	}
}

func poseidonMatricesEqual(a, b frMatrix) bool {
	for i := range a {
		for j := range a[i] {
			if !a[i][j].Equal(&b[i][j]) {
				return false
			}
		}
	}
	return true
}
