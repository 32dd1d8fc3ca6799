package anchor

import (
	"testing"

	"github.com/consensys/gnark-crypto/ecc"
	"github.com/consensys/gnark/backend/groth16"
	"github.com/consensys/gnark/frontend"
	"github.com/consensys/gnark/frontend/cs/r1cs"
	"github.com/snarkpipe/snarkpipe/prover/backend/cpu"
	spg16 "github.com/snarkpipe/snarkpipe/prover/groth16"
	spr1cs "github.com/snarkpipe/snarkpipe/prover/r1cs"
	"github.com/snarkpipe/snarkpipe/prover/r1cs/r1cstest"
	"github.com/snarkpipe/snarkpipe/prover/srs/srstest"
)

// chainLength is the benchmark's y ← y·y count: 1,000,000 rows plus the output check,
// domain 2^20 in both provers.
const chainLength = 1_000_000

type gnarkChain struct {
	X  frontend.Variable `gnark:",public"`
	Y0 frontend.Variable
}

func (c *gnarkChain) Define(api frontend.API) error {
	y := c.Y0
	for i := 0; i < chainLength; i++ {
		y = api.Mul(y, y)
	}
	api.AssertIsEqual(y, c.X)
	return nil
}

func BenchmarkChain1M(b *testing.B) {
	b.Run("snarkpipe", benchSnarkpipe)
	b.Run("gnark", benchGnark)
}

func benchSnarkpipe(b *testing.B) {
	circuit := &r1cstest.Chain{N: chainLength}
	shape, params := srstest.DevParams(b, circuit)
	defer params.Close()
	be, _ := cpu.New(cpu.DefaultConfig())
	pk, err := spg16.NewProvingKey(be, params, shape.Counts())
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		w := spr1cs.NewWitness(spr1cs.Capacity{Constraints: chainLength + 1, Aux: chainLength + 1, Inputs: 2})
		if err := circuit.Synthesize(w); err != nil {
			b.Fatal(err)
		}
		p, tm, err := pk.Prove(&shape.Density, spg16.AssignmentOf(w), nil)
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		if err := params.VK.Verify(&p, w.Inputs[1:]); err != nil {
			b.Fatal(err)
		}
		b.Logf("snarkpipe: %+v", tm)
		b.StartTimer()
	}
}

func benchGnark(b *testing.B) {
	ccs, err := frontend.Compile(ecc.BLS12_381.ScalarField(), r1cs.NewBuilder, &gnarkChain{})
	if err != nil {
		b.Fatal(err)
	}
	pk, err := groth16.DummySetup(ccs)
	if err != nil {
		b.Fatal(err)
	}
	// The same values as r1cstest.Chain: y0 = 3, X = 3^(2^N).
	w := spr1cs.NewWitness(spr1cs.Capacity{})
	if err := (&r1cstest.Chain{N: chainLength}).Synthesize(w); err != nil {
		b.Fatal(err)
	}
	full, err := frontend.NewWitness(&gnarkChain{X: w.Inputs[1], Y0: 3}, ecc.BLS12_381.ScalarField())
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := groth16.Prove(ccs, pk, full); err != nil {
			b.Fatal(err)
		}
	}
}
