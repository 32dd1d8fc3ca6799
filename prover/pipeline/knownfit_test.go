package pipeline

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/snarkpipe/snarkpipe/prover"
	"github.com/snarkpipe/snarkpipe/prover/backend"
	"github.com/snarkpipe/snarkpipe/prover/r1cs"
	"github.com/snarkpipe/snarkpipe/prover/srs"
	"github.com/snarkpipe/snarkpipe/prover/srs/srstest"
)

// sizedChain is a chain circuit that declares counts (prover.SizedCircuit) and counts
// its syntheses.
type sizedChain struct {
	prover.Circuit
	counts r1cs.Counts
	synths *atomic.Int64
}

func (c sizedChain) KnownCounts() (r1cs.Counts, bool) { return c.counts, true }

func (c sizedChain) Synthesize(cs r1cs.ConstraintSystem) error {
	c.synths.Add(1)
	return c.Circuit.Synthesize(cs)
}

// TestKnownCountsRefuseBeforeRecording: a circuit whose declared counts need more device
// memory than the GPU has is refused by Preload and Submit at once, with the circuit, the
// bytes needed and available and advice in the error, without a synthesis; one that fits
// proves.
func TestKnownCountsRefuseBeforeRecording(t *testing.T) {
	cfg := testConfig()
	cfg.DeviceBudget = 0
	cfg.HostBudget = 64 << 30                  // a number only: the device refuses first
	gpu := withMemory{newCPU(t), 4 << 30, nil} // a 4 GiB "GPU": budget 3.5 GiB
	p, err := New(cfg, Deps{Backends: []backend.Backend{gpu}, Params: srs.Dev{Cache: srstest.Cache(t)}})
	if err != nil {
		t.Fatal(err)
	}
	p.Start()
	t.Cleanup(func() { p.Close() })
	// 2^26 aux and constraints: about 13 GiB of parameters alone.
	huge := r1cs.Counts{Sizes: r1cs.Sizes{NumInputs: 2, NumAux: 1 << 26, NumConstraints: 1 << 26}, AAux: 1 << 26, BAux: 1 << 24}
	var synths atomic.Int64
	c := sizedChain{Circuit: chain(4, 5), counts: huge, synths: &synths}
	_, err = p.Preload(context.Background(), c)
	if !errors.Is(err, ErrTooLarge) {
		t.Fatalf("Preload of a circuit too large for the device: %v, want ErrTooLarge", err)
	}
	for _, want := range []string{string(c.ID()), "device0", "GiB", "GPU with more memory"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("refusal %q does not name %q", err, want)
		}
	}
	if _, err := p.Submit(context.Background(), JobSpec{Kind: "test", Circuits: []prover.Circuit{c}}); !errors.Is(err, ErrTooLarge) {
		t.Errorf("Submit: %v, want ErrTooLarge", err)
	}
	if n := synths.Load(); n != 0 {
		t.Errorf("the refused circuit was synthesized %d times", n)
	}
	// The same circuit declaring its true (small) counts is admitted and proves.
	small := sizedChain{Circuit: chain(4, 5), counts: r1cs.Counts{Sizes: r1cs.Sizes{NumInputs: 2, NumAux: 4, NumConstraints: 4}}, synths: &synths}
	res := await(t, submit(t, p, JobSpec{Kind: "test", Circuits: []prover.Circuit{small}}))
	if len(res.Proofs) != 1 {
		t.Fatalf("%d proofs", len(res.Proofs))
	}
}
