package lotus_test

import (
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/filecoin-project/go-state-types/abi"
	"github.com/filecoin-project/lotus/storage/sealer/storiface"

	"github.com/snarkpipe/snarkpipe/rpc/lotus"
	"github.com/snarkpipe/snarkpipe/sealer"
	"github.com/snarkpipe/snarkpipe/sealer/sealertest"
)

// TestWorkerGarbageC1LoggedOnWorker: a C1 output the service refuses is reported to the
// miner and logged on the worker's side too, naming the sector.
func TestWorkerGarbageC1LoggedOnWorker(t *testing.T) {
	var logs sealertest.LogBuffer
	svc, _ := sealertest.CPUService(t, sealer.DefaultConfig(), sealer.Deps{Log: slog.New(slog.NewTextHandler(&logs, nil))})
	m := newTestMiner(t)
	w, _ := startWorker(t, testConfig(), t.TempDir(), svc, m)
	registerAll(t, w, m, []lotus.Role{lotus.RoleC2})
	sector := storiface.SectorRef{ID: abi.SectorID{Miner: 1000, Number: 77}, ProofType: abi.RegisteredSealProof_StackedDrg2KiBV1_1}
	if _, err := m.worker(w.url(lotus.RoleC2)).SealCommit2(testCtx(t, time.Minute), sector, []byte(`{"garbage": true}`)); err != nil {
		t.Fatal(err)
	}
	if r := m.waitReturn(t, time.Minute); r.Err == nil {
		t.Fatalf("garbage C1 returned a proof: %+v", r)
	}
	if out := logs.String(); !strings.Contains(out, `msg="job refused" kind=seal-commit2 sector="miner 1000 sector 77"`) {
		t.Fatalf("worker log lacks the refusal:\n%s", out)
	}
}
