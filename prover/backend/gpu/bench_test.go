package gpu

import (
	"flag"
	"os"
	"testing"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"math/rand/v2"
)

var (
	gpuBench    = flag.Bool("gpubench", false, "run the full GPU kernel benchmark (Bench) and print its table")
	gpuBenchG1  = flag.Int("gpubench.g1max", 27, "log2 of the largest G1 MSM")
	gpuBenchG2  = flag.Int("gpubench.g2max", 25, "log2 of the largest G2 MSM")
	gpuBenchNTT = flag.Int("gpubench.nttmax", 27, "log2 of the largest NTT")
)

// TestBenchFull runs the benchmark table when -gpubench is given (GPU host only):
//
//	cd prover/backend/gpu && ../../../devrun/gpu.test -test.run TestBenchFull -gpubench
func TestBenchFull(t *testing.T) {
	if !*gpuBench {
		t.Skip("full GPU benchmark: pass -gpubench")
	}
	b := testBackend(t)
	cfg := DefaultBenchConfig()
	cfg.LibPath = b.lib.Path
	cfg.G1MaxLog, cfg.G2MaxLog, cfg.NTTMaxLog = *gpuBenchG1, *gpuBenchG2, *gpuBenchNTT
	cfg.BatchLog = min(cfg.BatchLog, cfg.G1MaxLog)
	cfg.WindowSweep = []int{16, 18, 20, 22}
	cfg.NTTTileSweep = []int{10, 11}
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
