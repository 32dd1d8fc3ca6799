package porep

import (
	"math/rand/v2"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/snarkpipe/snarkpipe/prover/r1cs"
	"github.com/snarkpipe/snarkpipe/types"
)

// TestSealed2KiBSatisfied seals a 2 KiB sector for every seal proof version (V1, V1_1,
// synthetic, NI), builds the partition circuits from the C1 output and checks that every
// row holds and that the circuit inputizes exactly SealPublicInputs (the challenges and
// parents derived from Filecoin data). Under -short: V1_1 and synthetic, partition 0.
func TestSealed2KiBSatisfied(t *testing.T) {
	for _, id := range []types.RegisteredSealProof{0, 5, 10, 15} {
		info, err := types.SealProof(id)
		if err != nil {
			t.Fatal(err)
		}
		t.Run(info.RustName, func(t *testing.T) {
			if testing.Short() && id != 5 && id != 10 {
				t.Skip("-short: V1 and NI are covered by TestRefseal2KiBSatisfied")
			}
			s := sealTestSector(t, info, rand.New(rand.NewPCG(uint64(id), 1)))
			c1 := s.c1(t)
			parts := len(c1.VanillaProofs)
			if testing.Short() {
				parts = 1
			}
			for k := range parts {
				c, err := FromC1(c1, k)
				if err != nil {
					t.Fatal(err)
				}
				cs := r1cs.NewChecker()
				if err := c.Synthesize(cs); err != nil {
					t.Fatal(err)
				}
				if err := cs.Err(); err != nil {
					t.Fatalf("partition %d: %v", k, err)
				}
				want, err := SealPublicInputs(info, c1.ReplicaID, c1.CommD, c1.CommR, c1.Seed, k)
				if err != nil {
					t.Fatal(err)
				}
				assertInputs(t, cs.Inputs(), want)
			}
		})
	}
}

// assertInputs compares a system's inputs (ONE first) with generate_public_inputs.
func assertInputs(t *testing.T, got, want []fr.Element) {
	t.Helper()
	if len(got) == 0 || !got[0].IsOne() {
		t.Fatal("input 0 is not ONE")
	}
	got = got[1:]
	if len(got) != len(want) {
		t.Fatalf("circuit has %d inputs, generate_public_inputs %d", len(got), len(want))
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("input %d: circuit %s, generate_public_inputs %s", i+1, got[i].String(), want[i].String())
		}
	}
}

// TestSealed2KiBTamperedFails changes one value the prover controls at a time; each must
// leave the system unsatisfied.
func TestSealed2KiBTamperedFails(t *testing.T) {
	info, err := types.SealProof(5)
	if err != nil {
		t.Fatal(err)
	}
	c1 := sealTestSector(t, info, rand.New(rand.NewPCG(7, 7))).c1(t)
	var seven fr.Element
	seven.SetUint64(7)
	for name, tamper := range map[string]func(c *Circuit){
		"parent row": func(c *Circuit) {
			c.Challenges[1].DrgParents[2].Rows[1].Add(&c.Challenges[1].DrgParents[2].Rows[1], &seven)
		},
		"data leaf":  func(c *Circuit) { c.Challenges[0].DataLeaf.Add(&c.Challenges[0].DataLeaf, &seven) },
		"replica id": func(c *Circuit) { c.ReplicaID.Add(&c.ReplicaID, &seven) },
		"node":       func(c *Circuit) { c.Challenges[0].Node ^= 1 },
		"comm_c":     func(c *Circuit) { c.CommC.Add(&c.CommC, &seven) },
		"tree R path": func(c *Circuit) {
			c.Challenges[0].CommRLastPath.Siblings[1][3].Add(&c.Challenges[0].CommRLastPath.Siblings[1][3], &seven)
		},
	} {
		if testing.Short() && (name == "comm_c" || name == "tree R path" || name == "node") {
			continue // 2.5 s each; the other three cover a column, the data and the header
		}
		c, err := FromC1(c1, 0)
		if err != nil {
			t.Fatal(err)
		}
		tamper(c)
		cs := r1cs.NewChecker()
		if err := c.Synthesize(cs); err != nil {
			t.Fatal(err)
		}
		if cs.Err() == nil {
			t.Errorf("%s: tampered circuit is satisfied", name)
		}
	}
}
