package main

import (
	"context"
	"strings"
	"testing"

	"github.com/snarkpipe/snarkpipe/prover"
	"github.com/snarkpipe/snarkpipe/prover/backend"
	"github.com/snarkpipe/snarkpipe/prover/backend/cpu"
	"github.com/snarkpipe/snarkpipe/prover/groth16"
	"github.com/snarkpipe/snarkpipe/prover/pipeline"
	"github.com/snarkpipe/snarkpipe/prover/r1cs"
	"github.com/snarkpipe/snarkpipe/prover/r1cs/r1cstest"
)

// freshDevKeys makes a new random dev key at every call: two devices get different
// verifying keys, which benchKeys must refuse.
type freshDevKeys struct{}

func (freshDevKeys) ProvingKey(_ context.Context, _ prover.CircuitID, shape *r1cs.Shape, be backend.Backend) (*groth16.ProvingKey, error) {
	params, err := groth16.DevSetup(shape, nil)
	if err != nil {
		return nil, err
	}
	return groth16.NewProvingKey(be, params, shape.Counts())
}

func chainShape(t *testing.T) (prover.CircuitID, *r1cs.Shape) {
	c := &r1cstest.Chain{N: 60}
	rec := r1cs.NewRecorder(r1cs.Capacity{})
	if err := c.Synthesize(rec); err != nil {
		t.Fatal(err)
	}
	return c.ID(), rec.Finish()
}

// TestBenchKeysKeepsOneVerifyingKey: a deterministic source gives every device the same
// VK, which VerifyingKey returns; a source whose second device gets another VK is refused
// (proofs of that device would be checked against the wrong key).
func TestBenchKeysKeepsOneVerifyingKey(t *testing.T) {
	id, shape := chainShape(t)
	be, err := cpu.New(cpu.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	k := newBenchKeys(pipeline.BenchKeys{})
	if _, err := k.VerifyingKey(id); err == nil {
		t.Fatal("a verifying key before any key was made")
	}
	var vks []*groth16.VerifyingKey
	for range 2 {
		pk, err := k.ProvingKey(ctx, id, shape, be)
		if err != nil {
			t.Fatal(err)
		}
		vks = append(vks, copyVK(&pk.Params.VK))
		pk.Close()
	}
	got, err := k.VerifyingKey(id)
	if err != nil || !got.Equal(vks[0]) || !got.Equal(vks[1]) {
		t.Fatalf("verifying key %v does not match the keys made", err)
	}
	if n := len(k.generations()); n != 2 {
		t.Fatalf("%d key generations recorded, want 2", n)
	}

	fresh := newBenchKeys(freshDevKeys{})
	if _, err := fresh.ProvingKey(ctx, id, shape, be); err != nil {
		t.Fatal(err)
	}
	if _, err := fresh.ProvingKey(ctx, id, shape, be); err == nil || !strings.Contains(err.Error(), "another verifying key") {
		t.Fatalf("second device with another VK: %v", err)
	}
}
