package gpu

import (
	"errors"
	"flag"
	"math/big"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/snarkpipe/snarkpipe/cuda"
)

var gpuEmu = flag.Bool("gpuemu", false, "without a real library, test against the host emulation cuda/build/emu (sh cuda/emu/build.sh; slow)")

// libPath finds cuda/build/libsnarkpipe_cuda.so above the working directory (tests run
// in the package folder; on the GPU host the test binary is run from there too), or else
// with -gpuemu the host emulation cuda/build/emu/libsnarkpipe_cuda.so (sh
// cuda/emu/build.sh), which checks the library's logic without a GPU.
func libPath() string {
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	for {
		cands := []string{filepath.Join(dir, "cuda", "build", cuda.LibName)}
		if *gpuEmu {
			cands = append(cands, filepath.Join(dir, "cuda", "build", "emu", cuda.LibName))
		}
		for _, p := range cands {
			if _, err := os.Stat(p); err == nil {
				return p
			}
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// testBackend opens device 0 or skips the test when no library or GPU is present.
func testBackend(t testing.TB) *Backend { t.Helper(); return testBackendWith(t, Config{}) }

// testBackendWith is testBackend with cfg (its LibPath is set here).
func testBackendWith(t testing.TB, cfg Config) *Backend {
	t.Helper()
	p := libPath()
	if p == "" {
		t.Skip("GPU test: cuda/build/" + cuda.LibName + " not found (run `make cuda` on a CUDA host)")
	}
	cfg.LibPath = p
	if cfg.Arith == "" {
		// SP_TEST_GPU_ARITH=int|fp64 runs the GPU tests in that arithmetic (cuda/runs/path.sh).
		cfg.Arith = Arith(os.Getenv("SP_TEST_GPU_ARITH"))
	}
	b, err := New(cfg)
	if errors.Is(err, cuda.ErrNoCUDA) {
		t.Skipf("GPU test: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.Close() })
	return b
}

func randFr(rng *rand.Rand) fr.Element {
	var e fr.Element
	e[0], e[1], e[2], e[3] = rng.Uint64(), rng.Uint64(), rng.Uint64(), rng.Uint64()>>4
	// Reduce into range by multiplying by one (Mul reduces): values are then canonical.
	one := fr.One()
	e.Mul(&e, &one)
	return e
}

func randScalars(rng *rand.Rand, n int) []fr.Element {
	s := make([]fr.Element, n)
	for i := range s {
		s[i] = randFr(rng)
	}
	return s
}

// randPoints returns n distinct affine points P_i = k·G + i·R for random k, R (fast: one
// addition each, one batch inversion).
func randPoints(rng *rand.Rand, n int) ([]bls.G1Affine, []bls.G2Affine) {
	_, _, g1, g2 := bls.Generators()
	k := randFr(rng)
	var kb big.Int
	k.BigInt(&kb)
	var r1 bls.G1Affine
	var r2 bls.G2Affine
	r1.ScalarMultiplication(&g1, &kb)
	r2.ScalarMultiplication(&g2, &kb)
	j1 := make([]bls.G1Jac, n)
	j2 := make([]bls.G2Jac, n)
	var a1 bls.G1Jac
	var a2 bls.G2Jac
	a1.FromAffine(&g1)
	a2.FromAffine(&g2)
	for i := 0; i < n; i++ {
		j1[i] = a1
		j2[i] = a2
		a1.AddMixed(&r1)
		a2.AddMixed(&r2)
	}
	return bls.BatchJacobianToAffineG1(j1), batchToAffineG2(j2)
}

func naiveMSMG1(pts []bls.G1Affine, s []fr.Element) bls.G1Jac {
	var acc bls.G1Jac
	acc.X.SetOne()
	acc.Y.SetOne()
	for i := range pts {
		var b big.Int
		s[i].BigInt(&b)
		var p bls.G1Jac
		p.FromAffine(&pts[i])
		p.ScalarMultiplication(&p, &b)
		acc.AddAssign(&p)
	}
	return acc
}
