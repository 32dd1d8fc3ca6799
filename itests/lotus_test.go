package itests

// Integration tests of the lotus-worker path: `snarkpipe worker run` registers with a
// simulated lotus-miner (kit.LotusMiner: lotus's API definitions, permission proxy and
// worker client over real loopback HTTP), which schedules work on it as lotus-miner does
// and verifies every proof it gets back with the dev verifying keys.
//
// Fast subset (runs under -short; 45-70 s together on the shared 2-core machine with a
// warm test cache, most of it the binary build and snarkpipe's 10 s registration
// heartbeat): TestLotusWinningPoSt, TestLotusWindowPoStSkipsUnreadableSector,
// TestLotusMinerRestartReregisters, TestLotusReturnRetriedUntilMinerBack (its corrupt-C1
// case). Expensive (kit.Expensive: each proves 2 KiB C2s on the CPU, about 1 min of CPU each,
// 1.5-6 min of wall time on the shared machine):
// TestLotusC2, TestLotusWorkerKilledDuringC2, the proof case of
// TestLotusReturnRetriedUntilMinerBack.

import (
	"context"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/filecoin-project/go-state-types/abi"
	"github.com/filecoin-project/lotus/storage/sealer/storiface"

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
	// The miner's check can fail: the same proof for other randomness or another sector
	// is refused.
	public := []kit.PoStSector{{Number: s.ID.Number, CommR: s.CommR}}
	if err := kit.VerifyPoSt(t, abi.RegisteredPoStProof_StackedDrgWinning2KiBV1, lotusRandomness(4), public, 0, proofs[0].ProofBytes); err == nil {
		t.Fatal("proof verified for other randomness")
	}
	other := kit.Sector2KiB(t, 12)
	public = []kit.PoStSector{{Number: s.ID.Number, CommR: other.CommR}}
	if err := kit.VerifyPoSt(t, abi.RegisteredPoStProof_StackedDrgWinning2KiBV1, lotusRandomness(3), public, 0, proofs[0].ProofBytes); err == nil {
		t.Fatal("proof verified for another comm_r")
	}
}

// TestLotusWindowPoStSkipsUnreadableSector: five sectors make three partitions (two
// sectors each at 2 KiB), sent in parallel to the wdpost role (two at a time: the limit
// its Info reports). Sector 23 cannot be
// read from storage: its partition answers exactly Skipped = [23] and no proof, the other
// partitions' proofs verify. The miner then proves again without sector 23 (as lotus
// does with skipped sectors) and every partition verifies.
func TestLotusWindowPoStSkipsUnreadableSector(t *testing.T) {
	const ppt = abi.RegisteredPoStProof_StackedDrgWindow2KiBV1_1
	m := kit.StartLotusMiner(t, kit.LotusMinerOptions{})
	m.StartWorker(t, "wdpost", kit.DaemonOptions{NoCuzk: true})
	ctx := lotusCtx(t, 5*time.Minute)
	if err := m.WaitWorkers(ctx, "window"); err != nil {
		t.Fatal(err)
	}
	var sectors []*kit.Sector
	for n := abi.SectorNumber(21); n <= 25; n++ {
		sectors = append(sectors, kit.Sector2KiB(t, n))
	}
	m.AddSectors(sectors...)
	m.BreakSector(23)

	res := m.WindowPoSt(ctx, t, ppt, lotusRandomness(9), sectors)
	if len(res) != 3 {
		t.Fatalf("%d partitions, want 3", len(res))
	}
	for _, p := range res {
		if p.Err != nil {
			t.Fatalf("partition %d: %v", p.Index, p.Err)
		}
		if p.Index == 1 {
			want := []abi.SectorID{{Miner: kit.FixtureMiner, Number: 23}}
			if !slices.Equal(p.Skipped, want) || p.Proof != nil {
				t.Fatalf("partition 1 (sectors %v): skipped %v, proof %v; want skipped exactly %v and no proof", p.Sectors, p.Skipped, p.Proof != nil, want)
			}
			continue
		}
		if len(p.Skipped) != 0 || p.Proof == nil || p.VerifyErr != nil {
			t.Fatalf("partition %d (sectors %v): skipped %v, proof %v, verify %v", p.Index, p.Sectors, p.Skipped, p.Proof != nil, p.VerifyErr)
		}
	}

	// The worker reports MaxConcurrent 2 for Window PoSt (post-max-concurrent): the miner
	// ran two of the three partitions at once, never three.
	if n := m.PeakPoStCalls("window"); n != 2 {
		t.Fatalf("%d Window PoSt partitions in flight at most, want 2", n)
	}
	// Partition 0's proof is not partition 2's.
	public := make([]kit.PoStSector, len(sectors))
	for i, s := range sectors {
		public[i] = kit.PoStSector{Number: s.ID.Number, CommR: s.CommR}
	}
	if err := kit.VerifyPoSt(t, ppt, lotusRandomness(9), public, 2, res[0].Proof.ProofBytes); err == nil {
		t.Fatal("partition 0's proof verified as partition 2")
	}

	good := slices.DeleteFunc(slices.Clone(sectors), func(s *kit.Sector) bool { return s.ID.Number == 23 })
	res = m.WindowPoSt(ctx, t, ppt, lotusRandomness(9), good)
	if len(res) != 2 {
		t.Fatalf("%d partitions without sector 23, want 2", len(res))
	}
	for _, p := range res {
		if p.Err != nil || len(p.Skipped) != 0 || p.Proof == nil || p.VerifyErr != nil {
			t.Fatalf("retry partition %d (sectors %v): err %v, skipped %v, proof %v, verify %v", p.Index, p.Sectors, p.Err, p.Skipped, p.Proof != nil, p.VerifyErr)
		}
	}
}

// TestLotusMinerRestartReregisters: the miner restarts (new Session, no workers); every
// role of the running snarkpipe worker notices on its heartbeat and calls WorkerConnect
// again with its own unchanged Session, and the re-registered winpost role proves.
func TestLotusMinerRestartReregisters(t *testing.T) {
	m := kit.StartLotusMiner(t, kit.LotusMinerOptions{})
	m.StartWorker(t, "c2,wdpost,winpost", kit.DaemonOptions{NoCuzk: true})
	ctx := lotusCtx(t, 3*time.Minute)
	if err := m.WaitWorkers(ctx, "sealing", "window", "winning"); err != nil {
		t.Fatal(err)
	}
	before := lotusSessions(m.Connects())
	if len(before) != 3 {
		t.Fatalf("registrations before the restart: %v, want one per role", m.Connects())
	}
	oldSession, seen := m.Session(), len(m.Connects())
	m.Restart()
	if m.Session() == oldSession || m.WorkerCount() != 0 {
		t.Fatal("restart kept the session or the workers")
	}
	if err := m.WaitWorkers(ctx, "sealing", "window", "winning"); err != nil {
		t.Fatalf("snarkpipe did not register again: %v", err)
	}
	after := lotusSessions(m.Connects()[seen:])
	if !maps.Equal(before, after) {
		t.Fatalf("re-registrations %v, want the same roles and sessions %v", after, before)
	}
	s := kit.Sector2KiB(t, 12)
	if _, err := m.WinningPoSt(ctx, t, abi.RegisteredPoStProof_StackedDrgWinning2KiBV1, lotusRandomness(5), s); err != nil {
		t.Fatalf("winning PoSt after re-registration: %v", err)
	}
}

// lotusSessions maps each registered session to its scheduler.
func lotusSessions(evs []kit.WorkerConnectEvent) map[string]string {
	out := map[string]string{}
	for _, e := range evs {
		out[e.Session.String()] = e.Scheduler
	}
	return out
}

// TestLotusReturnRetriedUntilMinerBack: the miner is unreachable when the worker has a
// C2 result to return; the worker keeps retrying, and once the miner is back the result
// arrives exactly once. Under -short the result is the permanent error for a corrupt C1
// (no proving); without -short the C2 is proved and the returned proof verifies.
func TestLotusReturnRetriedUntilMinerBack(t *testing.T) {
	m := kit.StartLotusMiner(t, kit.LotusMinerOptions{})
	d := m.StartWorker(t, "c2", kit.DaemonOptions{NoCuzk: true})
	// A CPU C2 took 4 min on the shared 2-core machine under load (1 min of CPU).
	ctx := lotusCtx(t, 15*time.Minute)
	if err := m.WaitWorkers(ctx, "sealing"); err != nil {
		t.Fatal(err)
	}
	// While the miner is down the worker still accepts its calls: it checked the miner's
	// token with AuthVerify at registration and keeps the answer for minutes.
	t.Run("corrupt C1", func(t *testing.T) {
		bad := *kit.Sector2KiB(t, 13)
		bad.C1 = append([]byte(nil), bad.C1...)
		bad.C1[len(bad.C1)/2] = '!'
		m.Down()
		id, err := m.SealCommit2(ctx, &bad)
		if err != nil {
			t.Fatal(err)
		}
		// A C1 that is not JSON is refused in milliseconds, before any job exists: two
		// seconds cover the worker's first return attempt (refused: the miner is down).
		time.Sleep(2 * time.Second)
		if m.Returned(id) {
			t.Fatal("returned while the miner was down")
		}
		m.Up()
		r, err := m.AwaitC2(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if r.Err == nil || r.Err.Code != storiface.ErrUnknown || len(r.Proof) != 0 {
			t.Fatalf("result %+v, want a permanent error (code %d) and no proof", r, storiface.ErrUnknown)
		}
	})
	t.Run("proof", func(t *testing.T) {
		kit.Expensive(t)
		s := kit.Sector2KiB(t, 14)
		m.Down()
		id, err := m.SealCommit2(ctx, s)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := d.WaitJob(ctx, t, "seal-commit2", "done"); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Second)
		if m.Returned(id) {
			t.Fatal("returned while the miner was down")
		}
		m.Up()
		r, err := m.AwaitC2(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if r.Err != nil {
			t.Fatalf("C2 failed: %+v", r.Err)
		}
		if err := kit.VerifySeal(t, s.C1, r.Proof); err != nil {
			t.Fatalf("returned proof: %v", err)
		}
	})
	if n := m.DuplicateReturns(); n != 0 {
		t.Fatalf("%d duplicate returns", n)
	}
}

// TestLotusC2: the miner schedules a 2 KiB C2 on the c2 role, gets the proof through
// ReturnSealCommit2 and it verifies (expensive: a CPU C2).
func TestLotusC2(t *testing.T) {
	kit.Expensive(t)
	m := kit.StartLotusMiner(t, kit.LotusMinerOptions{})
	m.StartWorker(t, "c2", kit.DaemonOptions{NoCuzk: true})
	ctx := lotusCtx(t, 15*time.Minute)
	proof, err := m.Commit2(ctx, t, kit.Fixture2KiB(t))
	if err != nil {
		t.Fatal(err)
	}
	if len(proof) != 192 {
		t.Fatalf("C2 proof of %d bytes, want 192", len(proof))
	}
	// The check can fail: the proof is not one of another sector's C1.
	if err := kit.VerifySeal(t, kit.Sector2KiB(t, 2).C1, proof); err == nil {
		t.Fatal("the proof verified for another sector")
	}
}

// TestLotusWorkerKilledDuringC2: snarkpipe is SIGKILLed while proving a C2; started
// again on the same state directory and port, it answers that call with
// ErrTempWorkerRestart (101), and the miner's resubmission gets a proof that verifies
// (expensive: a CPU C2, and part of another).
func TestLotusWorkerKilledDuringC2(t *testing.T) {
	kit.Expensive(t)
	m := kit.StartLotusMiner(t, kit.LotusMinerOptions{})
	d := m.StartWorker(t, "c2", kit.DaemonOptions{NoCuzk: true})
	ctx := lotusCtx(t, 20*time.Minute)
	s := kit.Sector2KiB(t, 15)
	id, err := m.SealCommit2(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.WaitJob(ctx, t, "seal-commit2", "running"); err != nil {
		t.Fatal(err)
	}
	d.Kill()
	if m.Returned(id) {
		t.Fatal("the killed worker returned a result")
	}
	d.Restart(t)
	r, err := m.AwaitC2(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if r.Err == nil || r.Err.Code != storiface.ErrTempWorkerRestart || len(r.Proof) != 0 {
		t.Fatalf("after the restart the miner got %+v, want ErrTempWorkerRestart (%d) for %v", r, storiface.ErrTempWorkerRestart, id)
	}
	if _, err := m.Commit2(ctx, t, s); err != nil {
		t.Fatalf("resubmission: %v", err)
	}
}
