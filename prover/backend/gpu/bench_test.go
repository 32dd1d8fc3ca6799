package gpu

import (
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"math/rand/v2"
)

var (
	gpuBench    = flag.Bool("gpubench", false, "run the full GPU kernel benchmark (Bench) and print its table")
	gpuBenchG1  = flag.Int("gpubench.g1max", 27, "log2 of the largest G1 MSM")
	gpuBenchG2  = flag.Int("gpubench.g2max", 25, "log2 of the largest G2 MSM")
	gpuBenchNTT = flag.Int("gpubench.nttmax", 27, "log2 of the largest NTT")
	gpuBenchMin = flag.String("gpubench.min", "", "log2 of the smallest G1, G2 and NTT sizes, as g1,g2,ntt (default 20,20,20)")
	gpuBenchLib = flag.String("gpubench.lib", "", "library to benchmark instead of the tests' one")
	gpuBenchG1T = flag.String("gpubench.g1tune", "", "comma-separated window_bits values (tuning variants) for extra rows of the largest G1 MSM")
	gpuBenchG2T = flag.String("gpubench.g2tune", "", "likewise for the largest G2 MSM")
	gpuBenchCmp = flag.Bool("gpubench.compare", false, "add the legacy NTT rows and skip the window sweep")
)

// parseUints reads a comma-separated list of numbers (0x prefixes allowed).
func parseUints(s string) ([]uint32, error) {
	var out []uint32
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		v, err := strconv.ParseUint(f, 0, 32)
		if err != nil {
			return nil, fmt.Errorf("bad number %q: %v", f, err)
		}
		out = append(out, uint32(v))
	}
	return out, nil
}

// TestBenchFull runs the benchmark table when -gpubench is given (GPU host only):
//
//	cd prover/backend/gpu && ../../../devrun/gpu.test -test.run TestBenchFull -gpubench
func TestBenchFull(t *testing.T) {
	if !*gpuBench {
		t.Skip("full GPU benchmark: pass -gpubench")
	}
	cfg := DefaultBenchConfig()
	if *gpuBenchLib != "" {
		cfg.LibPath = *gpuBenchLib
	} else {
		cfg.LibPath = testBackend(t).lib.Path
	}
	cfg.G1MaxLog, cfg.G2MaxLog, cfg.NTTMaxLog = *gpuBenchG1, *gpuBenchG2, *gpuBenchNTT
	if *gpuBenchMin != "" {
		m, err := parseUints(*gpuBenchMin)
		if err != nil || len(m) != 3 {
			t.Fatalf("-gpubench.min wants g1,g2,ntt: %q", *gpuBenchMin)
		}
		cfg.G1MinLog, cfg.G2MinLog, cfg.NTTMinLog = int(m[0]), int(m[1]), int(m[2])
	}
	cfg.BatchLog = min(cfg.BatchLog, cfg.G1MaxLog)
	cfg.NTTTileSweep = []int{10, 11}
	if *gpuBenchCmp {
		cfg.NTTLegacy = true
	} else {
		cfg.WindowSweep = []int{16, 18, 20, 22}
	}
	var err error
	if cfg.G1Tunings, err = parseUints(*gpuBenchG1T); err != nil {
		t.Fatal(err)
	}
	if cfg.G2Tunings, err = parseUints(*gpuBenchG2T); err != nil {
		t.Fatal(err)
	}
	if err := Bench(os.Stdout, cfg); err != nil {
		t.Fatal(err)
	}
}

func TestBatchToAffineG2(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	_, p2 := randPoints(rng, 20)
	j := make([]bls.G2Jac, len(p2)+1)
	for i := range p2 {
		j[i].FromAffine(&p2[i])
		j[i].DoubleAssign()
	}
	j[len(p2)].X.SetOne()
	j[len(p2)].Y.SetOne() // infinity
	got := batchToAffineG2(j)
	for i := range j {
		var want bls.G2Affine
		want.FromJacobian(&j[i])
		if !got[i].Equal(&want) {
			t.Fatalf("point %d differs", i)
		}
		if i < len(p2) && !got[i].IsOnCurve() {
			t.Fatalf("point %d not on the curve", i)
		}
	}
}
