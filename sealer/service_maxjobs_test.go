package sealer_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/filecoin-project/go-state-types/abi"

	"github.com/snarkpipe/snarkpipe/prover"
	"github.com/snarkpipe/snarkpipe/prover/pipeline"
	"github.com/snarkpipe/snarkpipe/sealer"
)

// gatedProver holds every Submit until gate is closed, then refuses it as closed: requests
// stay between admission and registration as long as the test wants.
type gatedProver struct {
	gate    chan struct{}
	mu      sync.Mutex
	reached int
}

func (p *gatedProver) Submit(ctx context.Context, _ pipeline.JobSpec) (*pipeline.Job, error) {
	p.mu.Lock()
	p.reached++
	p.mu.Unlock()
	<-p.gate
	return nil, pipeline.ErrClosed
}
func (p *gatedProver) Preload(context.Context, prover.Circuit) (pipeline.LoadInfo, error) {
	return pipeline.LoadInfo{}, pipeline.ErrClosed
}
func (p *gatedProver) Evict(prover.CircuitID) (bool, error) { return false, nil }
func (p *gatedProver) Status() pipeline.Status              { return pipeline.Status{} }

// TestMaxJobsHoldsUnderConcurrentSubmissions: requests that arrive together cannot all pass
// the max_jobs check while their input is being checked (the place is reserved at
// admission): with max_jobs = 2 and 8 concurrent valid Winning PoSt requests, exactly 2
// reach the prover and 6 are refused as unavailable naming max_jobs; refused and failed
// requests give their places back.
func TestMaxJobsHoldsUnderConcurrentSubmissions(t *testing.T) {
	sec := newServiceSector(t)
	cfg := sealer.DefaultConfig()
	cfg.MaxJobs = 2
	gp := &gatedProver{gate: make(chan struct{})}
	s, err := sealer.New(cfg, sealer.Deps{Prover: gp, Backend: "cpu"})
	if err != nil {
		t.Fatal(err)
	}
	req := func() *sealer.PoStRequest {
		return &sealer.PoStRequest{ProofType: abi.RegisteredPoStProof_StackedDrgWinning2KiBV1, Miner: sec.id.Miner, Randomness: sec.rnd, VanillaProofs: sec.winning}
	}
	const n = 8
	errs := make(chan error, n)
	for range n {
		go func() {
			_, err := s.SubmitWinningPoSt(context.Background(), req())
			errs <- err
		}()
	}
	refused := 0
	for range n - cfg.MaxJobs {
		select {
		case err := <-errs:
			var e *sealer.Error
			if !errors.As(err, &e) || e.Code != sealer.CodeUnavailable || !strings.Contains(e.Error(), "max_jobs") {
				t.Fatalf("refusal %d: %v, want unavailable naming max_jobs", refused, err)
			}
			refused++
		case <-time.After(time.Minute):
			t.Fatalf("only %d of %d requests refused", refused, n-cfg.MaxJobs)
		}
	}
	gp.mu.Lock()
	reached := gp.reached
	gp.mu.Unlock()
	if reached > cfg.MaxJobs {
		t.Fatalf("%d requests reached the prover, max_jobs is %d", reached, cfg.MaxJobs)
	}
	close(gp.gate)
	for range cfg.MaxJobs {
		if err := <-errs; sealer.CodeOf(err) != sealer.CodeUnavailable {
			t.Fatalf("gated request: %v", err)
		}
	}
	// Every place was given back: another max_jobs requests are admitted (and refused by
	// the closed prover, not by max_jobs).
	for i := range cfg.MaxJobs {
		_, err := s.SubmitWinningPoSt(context.Background(), req())
		if err == nil || strings.Contains(err.Error(), "max_jobs") {
			t.Fatalf("request %d after the flood: %v", i, err)
		}
	}
}
