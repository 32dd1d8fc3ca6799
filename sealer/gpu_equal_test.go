package sealer_test

import (
	"errors"
	"flag"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/snarkpipe/snarkpipe/cuda"
	"github.com/snarkpipe/snarkpipe/prover"
	"github.com/snarkpipe/snarkpipe/prover/backend"
	"github.com/snarkpipe/snarkpipe/prover/backend/cpu"
	"github.com/snarkpipe/snarkpipe/prover/backend/gpu"
	"github.com/snarkpipe/snarkpipe/prover/groth16"
	"github.com/snarkpipe/snarkpipe/prover/r1cs"
	"github.com/snarkpipe/snarkpipe/sealer/porep"
	"github.com/snarkpipe/snarkpipe/sealer/post"
	"github.com/snarkpipe/snarkpipe/sealer/refseal"
	"github.com/snarkpipe/snarkpipe/types"
)

var gpuEqual = flag.Bool("gpu.equal", false,
	"run TestGPUPathEqualsCPU: Filecoin circuits proven on the GPU (both paths) and the CPU with the same dev parameters and (r, s) (needs cuda/build/"+cuda.LibName+" and a GPU)")

// TestGPUPathEqualsCPU proves partition 0 of an 8 MiB PoRep (synthetic C1) and a 2 KiB
// Winning PoSt (synthetic vanilla proofs) four ways from one set of dev parameters and one
// fixed blinding (r, s): the CPU backend, the GPU backend through the host-evaluated path
// (ProvingKey.Prove), and the GPU's pre-compiled path (ResidentCircuit: A·z on the device)
// from a plain and from a bit-packed witness. All four proofs must be byte-identical and
// verify against the dev VK with the circuit's public inputs. Run on a GPU host (minutes:
// the dev setup of the 3.8 M-row PoRep runs on the CPU):
//
//	go test -c -o devrun/sealer.test ./sealer && make cuda
//	cd sealer && ../devrun/sealer.test -test.run TestGPUPathEqualsCPU -test.v -gpu.equal
func TestGPUPathEqualsCPU(t *testing.T) {
	if !*gpuEqual {
		t.Skip("GPU equality: run with -gpu.equal on a GPU host")
	}
	gb := openGPU(t)
	cb, err := cpu.New(cpu.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	t.Run("porep-8MiB", func(t *testing.T) {
		info, err := types.SealProof(6) // StackedDrg8MiBV1_1
		if err != nil {
			t.Fatal(err)
		}
		c1, _, err := refseal.SynthC1(info, 3)
		if err != nil {
			t.Fatal(err)
		}
		c, err := porep.FromC1(c1, 0)
		if err != nil {
			t.Fatal(err)
		}
		proveFourWays(t, c, cb, gb)
	})
	t.Run("winning-2KiB", func(t *testing.T) {
		info, err := types.PoStProof(0) // StackedDrgWinning2KiBV1
		if err != nil {
			t.Fatal(err)
		}
		sp, err := refseal.SynthPoStProofs(info, 5)
		if err != nil {
			t.Fatal(err)
		}
		c, err := post.FromVanilla(info, sp.Proofs, 0)
		if err != nil {
			t.Fatal(err)
		}
		proveFourWays(t, c, cb, gb)
	})
}

// openGPU opens device 0 from cuda/build above the working directory, or skips.
func openGPU(t *testing.T) *gpu.Backend {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	lib := ""
	for d := dir; lib == ""; d = filepath.Dir(d) {
		if p := filepath.Join(d, "cuda", "build", cuda.LibName); fileExists(p) {
			lib = p
		}
		if filepath.Dir(d) == d {
			break
		}
	}
	if lib == "" {
		t.Skip("GPU equality: cuda/build/" + cuda.LibName + " not found (make cuda on a CUDA host)")
	}
	// SP_TEST_GPU_ARITH=int|fp64 proves in that arithmetic (cuda/runs/path.sh).
	b, err := gpu.New(gpu.Config{LibPath: lib, Arith: gpu.Arith(os.Getenv("SP_TEST_GPU_ARITH"))})
	if errors.Is(err, cuda.ErrNoCUDA) {
		t.Skipf("GPU equality: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.Close() })
	return b
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }

type chacha struct{ *rand.ChaCha8 }

// proveFourWays records c, makes dev parameters, and checks the four proofs described at
// TestGPUPathEqualsCPU.
func proveFourWays(t *testing.T, c prover.Circuit, cb backend.Backend, gb *gpu.Backend) {
	start := time.Now()
	rec := r1cs.NewRecorder(r1cs.Capacity{})
	if err := c.Synthesize(rec); err != nil {
		t.Fatal(err)
	}
	shape := rec.Finish()
	w := r1cs.NewWitness(r1cs.Capacity{})
	if err := c.Synthesize(w); err != nil {
		t.Fatal(err)
	}
	w.Finish()
	t.Logf("%s: %d rows, %d inputs, %d aux; record + witness %v", c.ID(), shape.Rows(), shape.NumInputs, shape.NumAux, time.Since(start))
	start = time.Now()
	params, err := groth16.DevSetup(shape, chacha{rand.NewChaCha8([32]byte{7})})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("dev setup on the CPU %v", time.Since(start))
	rs, err := groth16.SampleRandomness(chacha{rand.NewChaCha8([32]byte{8})})
	if err != nil {
		t.Fatal(err)
	}
	clone := func(v []fr.Element) []fr.Element { return append([]fr.Element(nil), v...) }
	hostPath := func(be backend.Backend) [192]byte {
		pk, err := groth16.NewProvingKey(be, params, shape.Counts())
		if err != nil {
			t.Fatal(err)
		}
		defer pk.Close()
		as := groth16.AssignmentOf(w)
		as.A, as.B, as.C = clone(as.A), clone(as.B), clone(as.C)
		t0 := time.Now()
		p, _, err := pk.Prove(&shape.Density, as, &rs)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s host-evaluated path: %v", be.Name(), time.Since(t0))
		return p.Bytes()
	}
	want := hostPath(cb)
	if got := hostPath(gb); got != want {
		t.Error("GPU (host-evaluated path) and CPU proofs differ")
	}

	pk, err := groth16.NewProvingKey(gb, params, shape.Counts())
	if err != nil {
		t.Fatal(err)
	}
	defer pk.Close()
	rc, err := pk.LoadShape(shape)
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	p, tm, err := rc.Prove(w.Inputs, w.Aux, &rs)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("gpu resident path: %+v", tm)
	if p.Bytes() != want {
		t.Error("GPU resident-path and CPU proofs differ")
	}
	packed := backend.PackAux(w.Aux)
	p, _, err = rc.ProvePacked(w.Inputs, &packed, &rs)
	if err != nil {
		t.Fatal(err)
	}
	if p.Bytes() != want {
		t.Error("GPU resident-path (packed witness) and CPU proofs differ")
	}
	var proof groth16.Proof
	if err := proof.UnmarshalBinary(want[:]); err != nil {
		t.Fatal(err)
	}
	if err := params.VK.Verify(&proof, w.Inputs[1:]); err != nil {
		t.Fatalf("proof does not verify: %v", err)
	}
}
