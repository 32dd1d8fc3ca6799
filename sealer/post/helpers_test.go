package post

import (
	"errors"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/snarkpipe/snarkpipe/prover/r1cs"
)

// assertInputs compares the inputs a constraint system allocated (ONE first) with
// generate_public_inputs (ONE excluded).
func assertInputs(t *testing.T, got, want []fr.Element) {
	t.Helper()
	if len(got) == 0 || !got[0].IsOne() {
		t.Fatalf("input 0 is not ONE")
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

func asUnsat(err error, target **r1cs.UnsatisfiedError) bool { return errors.As(err, target) }
