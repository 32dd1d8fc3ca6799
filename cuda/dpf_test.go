package cuda

import (
	"os/exec"
	"strings"
	"testing"
)

// TestFP64ProductOnHost runs cuda/probe/dpf_check.sh: the exact split of a 52-bit and of a
// 48-bit limb product by two fused multiply-adds (round down, then nearest) that dpf.cuh
// uses on the GPU, checked with the host's FMA against 128-bit integers on 2,000,000 pairs
// each, and dpf::mont checked by Python's integers on 60,000 products (Fr and Fp in 52-bit
// limbs, Fp in 48-bit limbs; random and edge values below 2p). The NTT's butterflies use
// this product; the GPU side is checked against the CPU backend by prover/backend/gpu's
// NTT tests on a GPU host.
func TestFP64ProductOnHost(t *testing.T) {
	for _, tool := range []string{"g++", "python3", "sh"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not installed: the FP64 product's host check needs g++ and python3", tool)
		}
	}
	out, err := exec.Command("sh", "probe/dpf_check.sh").CombinedOutput()
	text := string(out)
	if err != nil {
		t.Fatalf("dpf_check.sh: %v\n%s", err, text)
	}
	for _, want := range []string{
		"split (52-bit limbs): 2000000 pairs, 0 mismatches",
		"split (48-bit limbs): 2000000 pairs, 0 mismatches",
		"mont: 60000 products, 0 mismatches",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("dpf_check.sh output lacks %q:\n%s", want, text)
		}
	}
}
