package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/filecoin-project/go-state-types/abi"

	"github.com/snarkpipe/snarkpipe/sealer/refseal"
	"github.com/snarkpipe/snarkpipe/types"
	"github.com/snarkpipe/snarkpipe/types/vanilla"
)

func TestSealCommandWritesVerifiedOutputs(t *testing.T) {
	dir := t.TempDir()
	if err := run(context.Background(), []string{"snarkpipe", "seal", "--size", "2KiB", "--out", dir, "--seed", "3"}); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"unsealed", "sealed", "sector.json", "c1.json", "commit2in.json",
		"stackeddrgwinning2kibv1.vproof", "stackeddrgwindow2kibv1.postpub.json", "stackeddrgwindow2kibv1_2.vproof"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Errorf("missing %s: %v", name, err)
		}
	}
	raw, err := os.ReadFile(filepath.Join(dir, "c1.json"))
	if err != nil {
		t.Fatal(err)
	}
	c1, err := vanilla.DecodeC1(raw)
	if err != nil {
		t.Fatal(err)
	}
	if c1.RegisteredProof != "StackedDrg2KiBV1_1" {
		t.Fatalf("registered proof %s", c1.RegisteredProof)
	}
}

func TestSealCommandRejectsLargeSizes(t *testing.T) {
	err := run(context.Background(), []string{"snarkpipe", "seal", "--size", "32GiB", "--out", t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), "synth") {
		t.Fatalf("got %v, want a pointer to synth", err)
	}
}

func TestSynthCommandC1AndPoSt(t *testing.T) {
	dir := t.TempDir()
	var out bytes.Buffer
	if err := runSynth(&out, "c1", "StackedDrg512MiBV1_1", 4, filepath.Join(dir, "c1.json")); err != nil {
		t.Fatal(err)
	}
	if err := runSynth(&out, "window", "StackedDrgWindow2KiBV1_2", 4, filepath.Join(dir, "w.vproofs")); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(dir, "w.vproofs"))
	if err != nil {
		t.Fatal(err)
	}
	proofs, err := vanilla.DecodePoStSectorProofList(raw)
	if err != nil || len(proofs) != 2 {
		t.Fatalf("decoded %d proofs, err %v", len(proofs), err)
	}
	if !strings.Contains(out.String(), "verified") {
		t.Fatalf("output lacks verification: %s", out.String())
	}
}

func TestSynthCommandExplainsNI(t *testing.T) {
	err := runSynth(&bytes.Buffer{}, "c1", "StackedDrg32GiBV1_2_Feat_NonInteractivePoRep", 1, filepath.Join(t.TempDir(), "x"))
	if err == nil || !strings.Contains(err.Error(), "comm_r") || !strings.Contains(err.Error(), refseal.ErrNotSynthesizable.Error()[:30]) {
		t.Fatalf("got %v, want the comm_r explanation", err)
	}
	if err := runSynth(&bytes.Buffer{}, "winning", "StackedDrgWindow32GiBV1", 1, "x"); err == nil {
		t.Fatal("kind/proof mismatch accepted")
	}
}

// TestSealRandomnessFeedsProve: the PoSt randomness seal writes (hex in sector.json and
// its output, base64 in Curio's postpub.json) is what --randomness takes, in either form.
func TestSealRandomnessFeedsProve(t *testing.T) {
	dir := t.TempDir()
	var out bytes.Buffer
	if err := runSeal(&out, "2KiB", "V1_1", 5, abi.SectorID{Miner: 1000, Number: 1}, dir); err != nil {
		t.Fatal(err)
	}
	var sector struct{ PoStRandomness string }
	var pub struct{ Randomness []byte }
	readJSON(t, filepath.Join(dir, "sector.json"), &sector)
	readJSON(t, filepath.Join(dir, "stackeddrgwinning2kibv1.postpub.json"), &pub)
	raw, err := os.ReadFile(filepath.Join(dir, "stackeddrgwinning2kibv1.postpub.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rawPub struct{ Randomness string }
	if err := json.Unmarshal(raw, &rawPub); err != nil {
		t.Fatal(err)
	}
	fromHex, err := parseRandomness(sector.PoStRandomness)
	if err != nil {
		t.Fatal(err)
	}
	fromBase64, err := parseRandomness(rawPub.Randomness)
	if err != nil {
		t.Fatalf("base64 from postpub.json: %v", err)
	}
	if fromHex != fromBase64 || fromHex != types.MaskFr([32]byte(pub.Randomness)) {
		t.Fatalf("hex %x and base64 %x differ", fromHex, fromBase64)
	}
	if !strings.Contains(out.String(), "--randomness "+sector.PoStRandomness) || !strings.Contains(out.String(), "snarkpipe prove winning --post-proof StackedDrgWinning2KiBV1") {
		t.Errorf("seal output does not show the prove command:\n%s", out.String())
	}
	if _, err := parseRandomness("abcd"); err == nil || !strings.Contains(err.Error(), "64 hex digits") {
		t.Errorf("short randomness: %v", err)
	}
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatal(err)
	}
}
