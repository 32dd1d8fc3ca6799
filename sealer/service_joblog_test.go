package sealer_test

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/filecoin-project/go-state-types/abi"

	"github.com/snarkpipe/snarkpipe/sealer"
	"github.com/snarkpipe/snarkpipe/sealer/sealertest"
)

// TestJobLog: a job logs its start and end with id, sector, proof type and time; a
// refused request (a garbage C1) logs why, naming the sector.
func TestJobLog(t *testing.T) {
	sec := newServiceSector(t)
	var buf sealertest.LogBuffer
	s, _ := sealertest.CPUService(t, sealer.DefaultConfig(), sealer.Deps{Log: slog.New(slog.NewTextHandler(&buf, nil))})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if _, err := s.GenerateWindowPoSt(ctx, &sealer.PoStRequest{ProofType: abi.RegisteredPoStProof_StackedDrgWindow2KiBV1_1,
		Miner: sec.id.Miner, Randomness: sec.rnd, VanillaProofs: sec.window}); err != nil {
		t.Fatal(err)
	}
	_, err := s.SubmitSealCommit2(ctx, &sealer.SealCommit2Request{Sector: sec.id, ProofType: abi.RegisteredSealProof_StackedDrg2KiBV1_1, C1: []byte("garbage")})
	if err == nil {
		t.Fatal("garbage C1 accepted")
	}
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(buf.String(), "job done") && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	out := buf.String()
	for _, want := range []string{
		`msg="job started" job=window-post-1 sector="miner 1000 sector 42" proof=StackedDrgWindow2KiBV1_2`,
		`msg="job done" job=window-post-1 sector="miner 1000 sector 42" proof=StackedDrgWindow2KiBV1_2 took=`,
		`msg="job refused" kind=seal-commit2 sector="miner 1000 sector 42" error=`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("job log lacks %s:\n%s", want, out)
		}
	}
}
