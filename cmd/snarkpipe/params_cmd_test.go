package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"

	"github.com/snarkpipe/snarkpipe/prover/groth16"
)

// TestParamNamesInUpstreamManifest: every file name we look for is one upstream publishes.
func TestParamNamesInUpstreamManifest(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "..", "shared", "testdata", "upstream", "parameters.json"))
	if os.IsNotExist(err) {
		t.Skip("upstream parameters.json not present (expected under ../shared/testdata/upstream)")
	}
	if err != nil {
		t.Fatal(err)
	}
	var manifest map[string]json.RawMessage
	if err := json.Unmarshal(b, &manifest); err != nil {
		t.Fatal(err)
	}
	sets := officialParamSets()
	if len(sets) != 15 {
		t.Fatalf("%d circuits, want 15 (5 PoRep, 5 Winning, 5 Window)", len(sets))
	}
	for _, s := range sets {
		for _, name := range []string{s.params, s.vk} {
			if _, ok := manifest[name]; !ok {
				t.Errorf("%s: %s is not in upstream's parameters.json", s.circuit, name)
			}
		}
	}
}

// TestParamsCheckSaysWhatIsWrong: an empty directory lists every missing file; a
// verifying key with the wrong input count and a digest mismatch are named.
func TestParamsCheckSaysWhatIsWrong(t *testing.T) {
	dir := t.TempDir()
	var out bytes.Buffer
	err := checkParams(&out, dir, "", false)
	if err == nil || !strings.Contains(err.Error(), "30 problems") {
		t.Fatalf("empty dir: %v", err)
	}
	s := officialParamSets()[0] // porep-2k
	if !strings.Contains(out.String(), "missing "+filepath.Join(dir, s.vk)) {
		t.Fatalf("output does not name the missing vk:\n%s", out.String())
	}
	_, _, g1, g2 := bls.Generators()
	vk := groth16.VerifyingKey{AlphaG1: g1, BetaG1: g1, BetaG2: g2, GammaG2: g2, DeltaG1: g1, DeltaG2: g2, IC: make([]bls.G1Affine, 3)}
	for i := range vk.IC {
		vk.IC[i] = g1
	}
	var buf bytes.Buffer
	if _, err := vk.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, s.vk), buf.Bytes(), 0o600)
	os.WriteFile(filepath.Join(dir, s.params), []byte("not params"), 0o600)
	manifest := filepath.Join(t.TempDir(), "parameters.json")
	mj, _ := json.Marshal(map[string]any{s.params: map[string]string{"digest": "00000000000000000000000000000000"}, s.vk: map[string]string{"digest": "x"}})
	os.WriteFile(manifest, mj, 0o600)
	out.Reset()
	checkParams(&out, dir, manifest, false)
	for _, want := range []string{
		"has 3 public inputs, the porep-2k circuit has 40",
		filepath.Join(dir, s.params) + " digest ",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}
