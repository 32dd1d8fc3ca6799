package gpu

import (
	"flag"
	"fmt"
	"testing"
	"time"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/snarkpipe/snarkpipe/prover/groth16"
	"github.com/snarkpipe/snarkpipe/prover/r1cs"
	"github.com/snarkpipe/snarkpipe/prover/r1cs/r1cstest"
)

var (
	gpuPath       = flag.Bool("gpupath", false, "run TestGPUPathBench: the pre-compiled path end to end on a random circuit (GPU host)")
	gpuPathLog    = flag.Int("gpupath.log", 20, "TestGPUPathBench: log2 of the circuit's constraints")
	gpuPathProofs = flag.Int("gpupath.proofs", 3, "TestGPUPathBench: proofs to make and verify")
)

// TestGPUPathBench measures the pre-compiled proving path from a cold start on one
// random circuit of 2^gpupath.log constraints: record the shape and build the witness
// (host), make an INSECURE benchmark key on the device (groth16.BenchSetup), load the
// shape, then prove gpupath.proofs times (and once more from pinned memory) with fresh blinding and verify every proof
// against the bench VK. Only with -gpupath (minutes on the host emulation even at small
// sizes):
//
//	../../../devrun/gpu.test -test.run TestGPUPathBench -gpupath -gpupath.log 22
func TestGPUPathBench(t *testing.T) {
	if !*gpuPath {
		t.Skip("benchmark: run with -gpupath on a GPU host")
	}
	b := testBackend(t)
	c := &r1cstest.Random{Seed: 42, Constraints: 1 << *gpuPathLog, Inputs: 8}
	t0 := time.Now()
	rec := r1cs.NewRecorder(r1cs.Capacity{})
	if err := c.Synthesize(rec); err != nil {
		t.Fatal(err)
	}
	shape := rec.Finish()
	tRecord := time.Since(t0)
	t0 = time.Now()
	w := r1cs.NewWitness(r1cs.Capacity{})
	if err := c.Synthesize(w); err != nil {
		t.Fatal(err)
	}
	w.Finish()
	tWitness := time.Since(t0)

	t0 = time.Now()
	pk, err := groth16.BenchSetup(b, shape, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer pk.Close()
	tSetup := time.Since(t0)
	t0 = time.Now()
	rc, err := pk.LoadShape(shape)
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	tLoad := time.Since(t0)
	t.Logf("%s on %s: %d rows, %d inputs, %d aux, domain 2^%d, %d+%d+%d terms", c.ID(), b.Device().Name, shape.Rows(),
		shape.NumInputs, shape.NumAux, lg2(shape.DomainSize()), shape.A.NonZeros(), shape.B.NonZeros(), shape.C.NonZeros())
	t.Logf("host record %v, host witness %v, device bench setup %v, shape upload %v", tRecord, tWitness, tSetup, tLoad)
	t.Logf("%-6s %9s %9s %9s %9s %9s %9s %9s %9s %9s %9s %9s", "proof", "upload", "A·z", "quotient", "H", "L", "A", "B1", "B2(G2)", "assemble", "total", "verify")
	// The last proof uploads from page-locked memory (PinHost), the others from ordinary
	// Go memory: the upload column shows the difference.
	for i := 0; i <= *gpuPathProofs; i++ {
		if i == *gpuPathProofs {
			for _, v := range [][]fr.Element{w.Inputs, w.Aux} {
				unpin, err := b.PinHost(v)
				if err != nil {
					t.Fatal(err)
				}
				defer unpin()
			}
			t.Logf("pinned:")
		}
		p, tm, err := rc.Prove(w.Inputs, w.Aux, nil)
		if err != nil {
			t.Fatal(err)
		}
		t0 = time.Now()
		if err := pk.Params.VK.Verify(&p, w.Inputs[1:]); err != nil {
			t.Fatalf("proof %d does not verify: %v", i, err)
		}
		ms := func(d time.Duration) string { return fmt.Sprintf("%.2fms", float64(d.Microseconds())/1000) }
		t.Logf("%-6d %9s %9s %9s %9s %9s %9s %9s %9s %9s %9s %9s", i, ms(tm.Upload), ms(tm.Eval), ms(tm.Quotient), ms(tm.MSMH),
			ms(tm.MSML), ms(tm.MSMA), ms(tm.MSMB1), ms(tm.MSMB2), ms(tm.Assemble), ms(tm.Total+tm.Assemble), ms(time.Since(t0)))
	}
}
