package sealertest

import (
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/snarkpipe/snarkpipe/prover"
	"github.com/snarkpipe/snarkpipe/prover/groth16"
	"github.com/snarkpipe/snarkpipe/prover/srs/srstest"
)

// VerifyDevProofs checks concatenated 192-byte proofs of circuit c, one per public-input
// vector, against c's dev verifying key from the shared test cache (the key a CPUService
// proves with), and that each proof fails with its first public input changed.
func VerifyDevProofs(t testing.TB, c prover.Circuit, b []byte, public [][]fr.Element) {
	t.Helper()
	_, params := srstest.DevParams(t, c)
	vk := params.VK
	params.Close()
	proofs, err := groth16.DecodeProofs(b)
	if err != nil {
		t.Fatal(err)
	}
	if len(proofs) != len(public) {
		t.Fatalf("%d proofs, want %d", len(proofs), len(public))
	}
	for i := range proofs {
		if err := vk.Verify(&proofs[i], public[i]); err != nil {
			t.Fatalf("proof %d: %v", i, err)
		}
		wrong := append([]fr.Element(nil), public[i]...)
		wrong[0].SetUint64(12345)
		if err := vk.Verify(&proofs[i], wrong); err == nil {
			t.Fatalf("proof %d verifies with a changed public input", i)
		}
	}
}
