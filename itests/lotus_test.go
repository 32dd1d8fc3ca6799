package itests

// Integration tests of the lotus-worker path: `snarkpipe worker run` registers with a
// simulated lotus-miner (kit.LotusMiner: lotus's API definitions, permission proxy and
// worker client over real loopback HTTP), which schedules work on it as lotus-miner does
// and verifies every proof it gets back with the dev verifying keys.
//
// Fast subset (runs under -short; about a minute on 2 cores with a warm test cache):
// TestLotusWinningPoSt, TestLotusWindowPoStSkipsUnreadableSector,
// TestLotusMinerRestartReregisters, TestLotusReturnRetriedUntilMinerBack.
// Expensive (kit.Expensive: each proves 2 KiB C2s on the CPU): TestLotusC2,
// TestLotusWorkerKilledDuringC2.

import (
	"context"
	"testing"
	"time"

	"github.com/filecoin-project/go-state-types/abi"

	"github.com/snarkpipe/snarkpipe/itests/kit"
)

// lotusRandomness is chain randomness for the PoSt tests (lotus masks byte 31).
func lotusRandomness(seed byte) []byte {
	r := make([]byte, 32)
	for i := range r {
		r[i] = seed + byte(i)*7
	}
	return r
}

func lotusCtx(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// TestLotusWinningPoSt: the miner registers snarkpipe's winpost role with its Winning
// PoSt scheduler, sends a Winning PoSt of a stored sector, and the proof verifies.
func TestLotusWinningPoSt(t *testing.T) {
	m := kit.StartLotusMiner(t, kit.LotusMinerOptions{})
	m.StartWorker(t, "winpost", kit.DaemonOptions{NoCuzk: true})
	ctx := lotusCtx(t, 3*time.Minute)
	if err := m.WaitWorkers(ctx, "winning"); err != nil {
		t.Fatal(err)
	}
	s := kit.Sector2KiB(t, 11)
	m.AddSectors(s)
	proofs, err := m.WinningPoSt(ctx, t, abi.RegisteredPoStProof_StackedDrgWinning2KiBV1, lotusRandomness(3), s)
	if err != nil {
		t.Fatal(err)
	}
	if len(proofs[0].ProofBytes) != 192 {
		t.Fatalf("proof of %d bytes", len(proofs[0].ProofBytes))
	}
}
