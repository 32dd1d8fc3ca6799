package pipeline

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/snarkpipe/snarkpipe/prover"
	"github.com/snarkpipe/snarkpipe/prover/groth16"
	"github.com/snarkpipe/snarkpipe/prover/r1cs"
)

// fillingChain is the squaring chain with a specialised witness generator. mode selects a
// correct fill, an error, a wrong value, or a panic.
type fillingChain struct {
	n    int
	y0   uint64
	mode string
	used *atomic.Int32 // counts FillWitness calls (partitions fill concurrently)
}

func (c *fillingChain) ID() prover.CircuitID { return chain(c.n, c.y0).ID() }

func (c *fillingChain) Synthesize(cs r1cs.ConstraintSystem) error {
	if c.mode == "panic-synth" {
		if _, ok := cs.(*keyCS); !ok {
			panic("gadget bug")
		}
	}
	return chain(c.n, c.y0).Synthesize(cs)
}

func (c *fillingChain) FillWitness(inputs, aux []fr.Element) error {
	c.used.Add(1)
	switch c.mode {
	case "error":
		return errors.New("vanilla proof rejected")
	case "panic":
		panic("filler bug")
	}
	if !inputs[0].IsOne() || len(inputs) != 2 || len(aux) != c.n+1 {
		return errors.New("unexpected buffer sizes")
	}
	aux[0].SetUint64(max(c.y0, 3))
	for i := 1; i <= c.n; i++ {
		aux[i].Square(&aux[i-1])
	}
	inputs[1] = aux[c.n]
	if c.mode == "wrong" {
		aux[c.n/2].SetUint64(12345) // a row no longer holds: the proof cannot verify
	}
	return nil
}

func TestWitnessFillerPath(t *testing.T) {
	p := startPipeline(t, testConfig())
	var used atomic.Int32
	c := &fillingChain{n: 80, y0: 5, used: &used}
	res := await(t, submit(t, p, JobSpec{Priority: Normal, Circuits: []prover.Circuit{c, &fillingChain{n: 80, y0: 6, used: &used}}}))
	if used.Load() != 2 {
		t.Fatalf("FillWitness called %d times, want 2", used.Load())
	}
	vk := devVK(t, c)
	for i, y0 := range []uint64{5, 6} {
		if err := vk.Verify(&res.Proofs[i], []fr.Element{chainOutput(80, y0)}); err != nil {
			t.Fatalf("proof %d: %v", i, err)
		}
	}
}

// Failures inside a circuit fail its job with an error; a wrong witness is caught by the
// verification of the finished proof, so no invalid proof is ever returned.
func TestCircuitFailuresFailTheJob(t *testing.T) {
	p := startPipeline(t, testConfig())
	for mode, want := range map[string]string{
		"error":       "vanilla proof rejected",
		"panic":       "circuit panicked: test-chain-30: filler bug",
		"panic-synth": "circuit panicked: test-chain-31: gadget bug", // a new id: recording panics
		"wrong":       groth16.ErrInvalidProof.Error(),
	} {
		var used atomic.Int32
		n := 30
		if mode == "panic-synth" {
			n = 31
		}
		j := submit(t, p, JobSpec{Priority: Normal, Circuits: []prover.Circuit{&fillingChain{n: n, y0: 3, mode: mode, used: &used}}})
		res, err := j.Await(context.Background())
		if err == nil || !strings.Contains(err.Error(), want) || len(res.Proofs) != 0 {
			t.Fatalf("%s: %d proofs, error %v", mode, len(res.Proofs), err)
		}
	}
	waitFor(t, "idle", func() bool { return idle(p) })
	// The pipeline still works.
	var used atomic.Int32
	await(t, submit(t, p, JobSpec{Priority: Normal, Circuits: []prover.Circuit{&fillingChain{n: 30, y0: 3, used: &used}}}))
}
