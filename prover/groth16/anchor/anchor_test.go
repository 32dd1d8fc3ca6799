package anchor

import (
	"flag"
	"slices"
	"testing"
	"time"

	"github.com/consensys/gnark-crypto/ecc"
	"github.com/consensys/gnark/backend/groth16"
	"github.com/consensys/gnark/backend/witness"
	"github.com/consensys/gnark/constraint"
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

// rounds > 0 runs TestAlternating: the two provers take turns on the same circuit, so
// load that comes and goes on a shared machine falls on both alike.
var rounds = flag.Int("anchor.rounds", 0, "alternating rounds for TestAlternating (0: skip)")

func BenchmarkChain1M(b *testing.B) {
	b.Run("snarkpipe", func(b *testing.B) {
		sp := newSnarkpipeProver(b)
		defer sp.close()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			sp.prove(b)
		}
	})
	b.Run("gnark", func(b *testing.B) {
		gp := newGnarkProver(b)
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			gp.prove(b)
		}
	})
}

func TestAlternating(t *testing.T) {
	if *rounds <= 0 {
		t.Skip("measurement harness: run with -anchor.rounds N")
	}
	sp := newSnarkpipeProver(t)
	defer sp.close()
	gp := newGnarkProver(t)
	var ours, theirs []time.Duration
	for i := 0; i < *rounds; i++ {
		start := time.Now()
		tm := sp.prove(t)
		ours = append(ours, time.Since(start))
		t.Logf("round %d snarkpipe %.2fs (witness+prove; prove stages %+v)", i, ours[i].Seconds(), tm)
		start = time.Now()
		gp.prove(t)
		theirs = append(theirs, time.Since(start))
		t.Logf("round %d gnark     %.2fs", i, theirs[i].Seconds())
	}
	t.Logf("snarkpipe min %.2fs median %.2fs | gnark min %.2fs median %.2fs",
		minOf(ours).Seconds(), median(ours).Seconds(), minOf(theirs).Seconds(), median(theirs).Seconds())
}

func minOf(d []time.Duration) time.Duration { return slices.Min(d) }

func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}

type snarkpipeProver struct {
	circuit *r1cstest.Chain
	shape   *spr1cs.Shape
	params  *spg16.Params
	pk      *spg16.ProvingKey
}

func newSnarkpipeProver(t testing.TB) *snarkpipeProver {
	circuit := &r1cstest.Chain{N: chainLength}
	shape, params := srstest.DevParams(t, circuit)
	be, _ := cpu.New(cpu.DefaultConfig())
	pk, err := spg16.NewProvingKey(be, params, shape.Counts())
	if err != nil {
		t.Fatal(err)
	}
	return &snarkpipeProver{circuit: circuit, shape: shape, params: params, pk: pk}
}

func (s *snarkpipeProver) close() { s.pk.Close(); s.params.Close() }

// prove generates the witness and proves, as gnark's Prove does (it solves the circuit
// itself); the proof is verified outside the timing the caller cares about.
func (s *snarkpipeProver) prove(t testing.TB) spg16.Timings {
	w := spr1cs.NewWitness(spr1cs.Capacity{Constraints: chainLength + 1, Aux: chainLength + 1, Inputs: 2})
	if err := s.circuit.Synthesize(w); err != nil {
		t.Fatal(err)
	}
	public := w.Inputs[1:]
	p, tm, err := s.pk.Prove(&s.shape.Density, spg16.AssignmentOf(w), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.params.VK.Verify(&p, public); err != nil {
		t.Fatal(err)
	}
	return tm
}

type gnarkProver struct {
	ccs     constraint.ConstraintSystem
	pk      groth16.ProvingKey
	witness witness.Witness
}

func newGnarkProver(t testing.TB) *gnarkProver {
	ccs, err := frontend.Compile(ecc.BLS12_381.ScalarField(), r1cs.NewBuilder, &gnarkChain{})
	if err != nil {
		t.Fatal(err)
	}
	pk, err := groth16.DummySetup(ccs)
	if err != nil {
		t.Fatal(err)
	}
	// The same values as r1cstest.Chain: y0 = 3, X = 3^(2^N).
	w := spr1cs.NewWitness(spr1cs.Capacity{})
	if err := (&r1cstest.Chain{N: chainLength}).Synthesize(w); err != nil {
		t.Fatal(err)
	}
	full, err := frontend.NewWitness(&gnarkChain{X: w.Inputs[1], Y0: 3}, ecc.BLS12_381.ScalarField())
	if err != nil {
		t.Fatal(err)
	}
	return &gnarkProver{ccs: ccs, pk: pk, witness: full}
}

func (g *gnarkProver) prove(t testing.TB) {
	if _, err := groth16.Prove(g.ccs, g.pk, g.witness); err != nil {
		t.Fatal(err)
	}
}
