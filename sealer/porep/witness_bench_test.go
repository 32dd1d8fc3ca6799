package porep

import (
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/snarkpipe/snarkpipe/prover/r1cs"
	"github.com/snarkpipe/snarkpipe/sealer/refseal"
	"github.com/snarkpipe/snarkpipe/types"
)

// bench32GiB returns a 32 GiB-shape circuit with the given number of challenges and
// random values, and the sizes of its system.
func bench32GiB(b *testing.B, challenges int) (*Circuit, r1cs.Sizes) {
	info, err := types.SealProof(8)
	if err != nil {
		b.Fatal(err)
	}
	cfg := ConfigFor(info)
	cfg.Challenges = challenges
	c, err := Blank(cfg)
	if err != nil {
		b.Fatal(err)
	}
	randomize(c, rand.New(rand.NewPCG(1, 2)))
	cs := r1cs.NewCounter()
	if err := c.Synthesize(cs); err != nil {
		b.Fatal(err)
	}
	return c, cs.Sizes()
}

// BenchmarkFillWitness32GiB measures FillWitness on 32 GiB-shape challenges (GOMAXPROCS
// of them, so every core has one); rows/s is the rate to extrapolate to a full partition
// (130,278,541 rows).
func BenchmarkFillWitness32GiB(b *testing.B) {
	c, sz := bench32GiB(b, min(max(testingProcs(), 1), 18))
	inputs := make([]fr.Element, sz.NumInputs)
	inputs[0].SetOne()
	aux := make([]fr.Element, sz.NumAux)
	b.ResetTimer()
	for range b.N {
		if err := c.FillWitness(inputs, aux); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(sz.NumConstraints)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}

// BenchmarkWitnessBuilder32GiB measures the generic witness builder (one goroutine: it
// synthesizes in order) on one 32 GiB-shape challenge.
func BenchmarkWitnessBuilder32GiB(b *testing.B) {
	c, sz := bench32GiB(b, 1)
	b.ResetTimer()
	for range b.N {
		w := r1cs.NewWitness(r1cs.Capacity{Inputs: sz.NumInputs, Aux: sz.NumAux, Constraints: sz.NumConstraints})
		if err := c.Synthesize(w); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(sz.NumConstraints)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}

func testingProcs() int { return runtime.GOMAXPROCS(0) }

// BenchmarkFillWitnessSynthetic32GiBPartition fills a whole 32 GiB partition (18
// challenges, 130,278,541 rows) of a synthetic C1 output (refseal.SynthC1) with
// FillWitness, into buffers allocated (and touched) once: the pipeline's steady state.
func BenchmarkFillWitnessSynthetic32GiBPartition(b *testing.B) {
	info, err := types.SealProof(8)
	if err != nil {
		b.Fatal(err)
	}
	c1, _, err := refseal.SynthC1(info, 1)
	if err != nil {
		b.Fatal(err)
	}
	c, err := FromC1(c1, 0)
	if err != nil {
		b.Fatal(err)
	}
	inputs := make([]fr.Element, c.NumInputs())
	inputs[0].SetOne()
	aux := make([]fr.Element, 130_169_893)
	if err := c.FillWitness(inputs, aux); err != nil { // first touch of the buffers
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		if err := c.FillWitness(inputs, aux); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(130_278_541*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}
