package main

import (
	"bytes"
	"context"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/snarkpipe/snarkpipe/prover/groth16"
	"github.com/snarkpipe/snarkpipe/prover/srs/srstest"
)

// The 2 KiB PoSt vanilla proofs of the real Venus genesis sectors, made by the
// sealer/post tests (-write-fixtures) with this randomness (bytes 3i+1; the CLI clears
// the top two bits, as the tests did).
var (
	postFixtures   = filepath.Join("..", "..", "sealer", "post", "testdata")
	postRandomness = func() string {
		b := make([]byte, 32)
		for i := range b {
			b[i] = byte(3*i + 1)
		}
		return hex.EncodeToString(b)
	}()
)

func postArgs(cmd, kind, proofID, randomness string, sectors int, extra ...string) []string {
	args := []string{"snarkpipe", cmd, kind, "--post-proof", proofID, "--randomness", randomness}
	for i := range sectors {
		args = append(args, "--vanilla", filepath.Join(postFixtures, "venus-2KiB-post"+proofID+"-sector"+string(rune('0'+i))+".vproof"))
	}
	return append(args, extra...)
}

// proveVerifyPoSt proves a 2 KiB PoSt with dev parameters, verifies it, and checks that
// verification fails for other public inputs (other randomness, another sector) and for
// a corrupted proof.
func proveVerifyPoSt(t *testing.T, kind, proofID string, sectors int) {
	cache := srstest.Cache(t).Dir
	dir := t.TempDir()
	proof := filepath.Join(dir, kind+".proof")
	ctx := context.Background()
	vkPath := filepath.Join(dir, kind+".vk")
	inputsPath := filepath.Join(dir, kind+".inputs.json")
	if err := run(ctx, postArgs("prove", kind, proofID, postRandomness, sectors, "--cache", cache, "--out", proof, "--vk-out", vkPath, "--inputs-out", inputsPath)); err != nil {
		t.Fatal(err)
	}
	assertExportedInputsVerify(t, inputsPath, proof, vkPath)
	verifyInputs := filepath.Join(dir, kind+".verify-inputs.json")
	if err := run(ctx, postArgs("verify", kind, proofID, postRandomness, sectors, "--vk", vkPath, "--proof", proof, "--inputs-out", verifyInputs)); err != nil {
		t.Fatal(err)
	}
	if a, b := readFile(t, inputsPath), readFile(t, verifyInputs); a != b {
		t.Errorf("prove and verify export different inputs:\n%s\n%s", a, b)
	}
	var vanillas []string
	for i := range sectors {
		vanillas = append(vanillas, filepath.Join(postFixtures, "venus-2KiB-post"+proofID+"-sector"+string(rune('0'+i))+".vproof"))
	}
	st, err := postStatement(kind, proofID, postRandomness, vanillas, false)
	if err != nil {
		t.Fatal(err)
	}
	assertEveryInputMatters(t, st, proof, vkPath)
	if err := run(ctx, postArgs("verify", kind, proofID, postRandomness, sectors, "--cache", cache, "--proof", proof)); err != nil {
		t.Fatalf("proof does not verify: %v", err)
	}
	other := "ff" + postRandomness[2:]
	if err := run(ctx, postArgs("verify", kind, proofID, other, sectors, "--cache", cache, "--proof", proof)); err == nil {
		t.Error("proof verifies under other randomness")
	}
	if sectors == 2 {
		// Sector order is part of the statement: swapping the sectors changes the inputs.
		args := postArgs("verify", kind, proofID, postRandomness, 0, "--cache", cache, "--proof", proof)
		for _, i := range []string{"1", "0"} {
			args = append(args, "--vanilla", filepath.Join(postFixtures, "venus-2KiB-post"+proofID+"-sector"+i+".vproof"))
		}
		if err := run(ctx, args); err == nil {
			t.Error("proof verifies with the sectors swapped")
		}
	}
	b, err := os.ReadFile(proof)
	if err != nil {
		t.Fatal(err)
	}
	b[100] ^= 1
	if err := os.WriteFile(proof, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := run(ctx, postArgs("verify", kind, proofID, postRandomness, sectors, "--cache", cache, "--proof", proof)); err == nil {
		t.Error("corrupted proof verifies")
	}
}

// assertExportedInputsVerify checks the proof with nothing but the exported files: the
// public inputs read back from --inputs-out, the key from --vk-out.
func assertExportedInputsVerify(t *testing.T, inputsPath, proofPath, vkPath string) {
	t.Helper()
	circuit, inputs, err := readPublicInputs(inputsPath)
	if err != nil {
		t.Fatal(err)
	}
	vk, err := groth16.ReadVerifyingKeyFile(vkPath)
	if err != nil {
		t.Fatal(err)
	}
	proofs, err := groth16.DecodeProofs([]byte(readFile(t, proofPath)))
	if err != nil || len(proofs) != len(inputs) || circuit == "" {
		t.Fatalf("%d proofs, %d partitions of inputs, circuit %q (%v)", len(proofs), len(inputs), circuit, err)
	}
	for k := range proofs {
		if err := vk.Verify(&proofs[k], inputs[k]); err != nil {
			t.Fatalf("partition %d does not verify with the exported inputs: %v", k, err)
		}
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// assertEveryInputMatters verifies the proof against its public inputs, then against each
// input changed by one: every change must make verification fail.
func assertEveryInputMatters(t *testing.T, st *statement, proofPath, vkPath string) {
	t.Helper()
	vk, err := groth16.ReadVerifyingKeyFile(vkPath)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(proofPath)
	if err != nil {
		t.Fatal(err)
	}
	proofs, err := groth16.DecodeProofs(b)
	if err != nil || len(proofs) != 1 || len(st.inputs) != 1 {
		t.Fatalf("%d proofs, %d partitions (%v)", len(proofs), len(st.inputs), err)
	}
	if err := vk.Verify(&proofs[0], st.inputs[0]); err != nil {
		t.Fatal(err)
	}
	var one fr.Element
	one.SetOne()
	for i := range st.inputs[0] {
		in := append([]fr.Element(nil), st.inputs[0]...)
		in[i].Add(&in[i], &one)
		if vk.Verify(&proofs[0], in) == nil {
			t.Errorf("proof verifies with public input %d changed", i+1)
		}
	}
}

// TestProveVerifyWindow2KiB: Window PoSt V1 over both Venus sectors (2^15 domain; dev
// parameters are made once per machine in the shared test cache).
func TestProveVerifyWindow2KiB(t *testing.T) { proveVerifyPoSt(t, "window", "5", 2) }

// TestProveVerifyWinning2KiB: Winning PoSt (90,750 rows, 2^17 domain): not under -short.
func TestProveVerifyWinning2KiB(t *testing.T) {
	if testing.Short() {
		t.Skip("Winning 2 KiB prove (2^17 domain, dev setup on first run): not under -short")
	}
	proveVerifyPoSt(t, "winning", "0", 1)
}

// TestProveVerifyC2 2KiB seals a 2 KiB sector with the reference sealer (`seal`), proves
// its C1 output and verifies the proof; a C1 output with another seed (other challenges)
// must not verify it. 2.7 M rows, 2^22 domain: not under -short.
func TestProveVerifyC22KiB(t *testing.T) {
	if testing.Short() {
		t.Skip("2 KiB C2 prove (2.7 M rows, 2^22 domain; dev setup takes minutes on first run): not under -short")
	}
	cache := srstest.Cache(t).Dir
	dir := t.TempDir()
	ctx := context.Background()
	if err := run(ctx, []string{"snarkpipe", "seal", "--size", "2KiB", "--out", dir, "--seed", "5"}); err != nil {
		t.Fatal(err)
	}
	c1 := filepath.Join(dir, "c1.json")
	proof := filepath.Join(dir, "c2.proof")
	if err := run(ctx, []string{"snarkpipe", "prove", "c2", "--c1", c1, "--cache", cache, "--out", proof, "--vk-out", filepath.Join(dir, "c2.vk")}); err != nil {
		t.Fatal(err)
	}
	if err := run(ctx, []string{"snarkpipe", "verify", "c2", "--c1", c1, "--vk", filepath.Join(dir, "c2.vk"), "--proof", proof}); err != nil {
		t.Fatalf("proof does not verify: %v", err)
	}
	st, err := c2Statement(c1, false)
	if err != nil {
		t.Fatal(err)
	}
	assertEveryInputMatters(t, st, proof, filepath.Join(dir, "c2.vk"))
	raw, err := os.ReadFile(c1)
	if err != nil {
		t.Fatal(err)
	}
	// Another seed: the challenges, hence the public inputs, change.
	i := bytes.Index(raw, []byte(`"seed":[`)) + len(`"seed":[`)
	j := i + bytes.IndexByte(raw[i:], ',')
	alt := append(append(append([]byte{}, raw[:i]...), []byte("7")...), raw[j:]...)
	if string(raw[i:j]) == "7" {
		alt = append(append(append([]byte{}, raw[:i]...), []byte("8")...), raw[j:]...)
	}
	altPath := filepath.Join(dir, "c1-other-seed.json")
	if err := os.WriteFile(altPath, alt, 0o644); err != nil {
		t.Fatal(err)
	}
	err = run(ctx, []string{"snarkpipe", "verify", "c2", "--c1", altPath, "--vk", filepath.Join(dir, "c2.vk"), "--proof", proof})
	if err == nil || !strings.Contains(err.Error(), "invalid proof") {
		t.Fatalf("proof verified (or failed oddly) under another seed: %v", err)
	}
}

// TestProveRejectsBadInput: a missing file, a wrong kind and bad randomness are errors.
func TestProveRejectsBadInput(t *testing.T) {
	ctx := context.Background()
	for _, args := range [][]string{
		{"snarkpipe", "prove", "c2", "--c1", filepath.Join(t.TempDir(), "missing.json"), "--out", "x"},
		postArgs("prove", "winning", "5", postRandomness, 1, "--out", "x"),
		postArgs("prove", "window", "5", "abcd", 1, "--out", "x"),
	} {
		if err := run(ctx, args); err == nil {
			t.Errorf("%v accepted", args[1:4])
		}
	}
}
