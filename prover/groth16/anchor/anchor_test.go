package anchor

import (
	"flag"
	"slices"
	"testing"
	"time"

	"github.com/consensys/gnark-crypto/ecc"
	curve "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark/backend/groth16"
	gnarkbls "github.com/consensys/gnark/backend/groth16/bls12-381"
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
	dummy := newGnarkProver(t)
	distinct := newGnarkProver(t)
	distinct.useDistinctBases(t, sp.params)
	var ours, gDummy, gDistinct []time.Duration
	timed := func(f func()) time.Duration { start := time.Now(); f(); return time.Since(start) }
	for i := 0; i < *rounds; i++ {
		var tm spg16.Timings
		ours = append(ours, timed(func() { tm = sp.prove(t) }))
		t.Logf("round %d snarkpipe          %.2fs (witness+prove; stages %+v)", i, ours[i].Seconds(), tm)
		gDummy = append(gDummy, timed(func() { dummy.prove(t) }))
		t.Logf("round %d gnark DummySetup   %.2fs", i, gDummy[i].Seconds())
		gDistinct = append(gDistinct, timed(func() { distinct.prove(t) }))
		t.Logf("round %d gnark distinct     %.2fs", i, gDistinct[i].Seconds())
	}
	for _, r := range []struct {
		name string
		d    []time.Duration
	}{{"snarkpipe", ours}, {"gnark DummySetup", gDummy}, {"gnark distinct bases", gDistinct}} {
		t.Logf("%-22s min %7.2fs median %7.2fs", r.name, minOf(r.d).Seconds(), median(r.d).Seconds())
	}
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

// useDistinctBases replaces the proving key's points by distinct ones taken from a real
// parameter set. gnark's DummySetup repeats one point in every vector, and gnark-crypto's
// MSM measured about 1.6× faster on identical bases than on distinct ones (2^17 points,
// one task), so the dummy key flatters gnark. Proofs made with this key do not verify
// (neither do DummySetup's); only the time is used.
func (g *gnarkProver) useDistinctBases(t testing.TB, src *spg16.Params) {
	pk, ok := g.pk.(*gnarkbls.ProvingKey)
	if !ok {
		t.Fatalf("unexpected gnark proving key type %T", g.pk)
	}
	for _, v := range [][]curve.G1Affine{pk.G1.A, pk.G1.B, pk.G1.K, pk.G1.Z} {
		for i := range v {
			v[i] = src.H[i%len(src.H)]
		}
	}
	for i := range pk.G2.B {
		pk.G2.B[i] = src.BG2[i%len(src.BG2)]
	}
}

func (g *gnarkProver) prove(t testing.TB) {
	if _, err := groth16.Prove(g.ccs, g.pk, g.witness); err != nil {
		t.Fatal(err)
	}
}
