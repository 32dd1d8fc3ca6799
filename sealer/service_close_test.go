package sealer_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/filecoin-project/go-state-types/abi"

	"github.com/snarkpipe/snarkpipe/sealer"
)

// TestCloseCancelsAtDeadline: a job in flight when the drain deadline passes is cancelled
// cleanly (its state says so, Await returns a cancelled error) and Close returns soon after;
// a request after Close is refused as temporary.
func TestCloseCancelsAtDeadline(t *testing.T) {
	sec := newServiceSector(t)
	s, _ := newProvingService(t, sealer.DefaultConfig())
	req := &sealer.PoStRequest{ProofType: abi.RegisteredPoStProof_StackedDrgWinning2KiBV1, Miner: sec.id.Miner, Randomness: sec.rnd, VanillaProofs: sec.winning}
	id, err := s.SubmitWinningPoSt(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	start := time.Now()
	err = s.Close(ctx)
	took := time.Since(start)
	if err == nil {
		t.Skip("the job finished within 10 ms; nothing was in flight")
	}
	if !errors.Is(err, context.DeadlineExceeded) || took > 30*time.Second {
		t.Fatalf("Close: %v after %v", err, took)
	}
	_, err = s.Await(context.Background(), id)
	if !errors.Is(err, sealer.ErrCancelled) {
		t.Fatalf("await after cancel: %v", err)
	}
	info, err := s.Job(context.Background(), id)
	if err != nil || info.State != sealer.JobCancelled {
		t.Fatalf("job %+v %v", info, err)
	}
	_, err = s.SubmitWinningPoSt(context.Background(), req)
	if !errors.Is(err, sealer.ErrUnavailable) || !sealer.IsTemporary(err) {
		t.Fatalf("submit after Close: %v", err)
	}
}

// TestCloseDrainsInFlight: with a generous deadline, Close waits for the job, which
// succeeds.
func TestCloseDrainsInFlight(t *testing.T) {
	sec := newServiceSector(t)
	s, _ := newProvingService(t, sealer.DefaultConfig())
	req := &sealer.PoStRequest{ProofType: abi.RegisteredPoStProof_StackedDrgWindow2KiBV1_1, Miner: sec.id.Miner, Randomness: sec.rnd, VanillaProofs: sec.window}
	id, err := s.SubmitWindowPoSt(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	if err := s.Close(ctx); err != nil {
		t.Fatalf("Close: %v", err)
	}
	res, err := s.Await(context.Background(), id)
	if err != nil || res.Info.State != sealer.JobDone || len(res.PoSt.Proofs) != 1 {
		t.Fatalf("job after drain: %+v %v", res, err)
	}
}
