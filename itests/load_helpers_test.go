package itests

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/filecoin-project/go-state-types/abi"

	"github.com/snarkpipe/snarkpipe/itests/kit"
	"github.com/snarkpipe/snarkpipe/rpc/api"
)

// loadJob is one job submitted through the native API and how to check its proof.
type loadJob struct {
	name   string
	id     api.JobID
	verify func(t testing.TB, res *api.JobResult) error
}

// The submit functions return errors rather than failing the test, so that goroutines
// can submit concurrently (only the test goroutine may stop a test).

func submitC2(ctx context.Context, c api.SnarkPipe, s *kit.Sector) (loadJob, error) {
	id, err := c.SubmitSealCommit2(ctx, api.SealCommit2Request{Sector: s.ID, ProofType: s.SealProof, C1: s.C1})
	if err != nil {
		return loadJob{}, fmt.Errorf("submit C2 of sector %d: %w", s.ID.Number, err)
	}
	return loadJob{name: fmt.Sprintf("c2 sector %d", s.ID.Number), id: id, verify: func(t testing.TB, res *api.JobResult) error {
		return kit.VerifySeal(t, s.C1, res.Proof)
	}}, nil
}

func submitWinning(ctx context.Context, c api.SnarkPipe, s *kit.Sector, rand []byte) (loadJob, error) {
	v, err := s.Vanilla(winningPoSt2KiB, rand, 0)
	if err != nil {
		return loadJob{}, err
	}
	id, err := c.SubmitWinningPoSt(ctx, api.PoStRequest{ProofType: winningPoSt2KiB, Miner: s.ID.Miner, Randomness: rand, VanillaProofs: [][]byte{v}})
	if err != nil {
		return loadJob{}, fmt.Errorf("submit winning PoSt: %w", err)
	}
	return loadJob{name: fmt.Sprintf("winning sector %d", s.ID.Number), id: id, verify: func(t testing.TB, res *api.JobResult) error {
		return verifyPoStResult(t, winningPoSt2KiB, rand, postSectors(s), res)
	}}, nil
}

func submitWindow(ctx context.Context, c api.SnarkPipe, sectors []*kit.Sector, rand []byte) (loadJob, error) {
	req := api.PoStRequest{ProofType: windowPoSt2KiB, Miner: sectors[0].ID.Miner, Randomness: rand}
	for i, s := range sectors {
		v, err := s.Vanilla(windowPoSt2KiB, rand, i)
		if err != nil {
			return loadJob{}, err
		}
		req.VanillaProofs = append(req.VanillaProofs, v)
	}
	id, err := c.SubmitWindowPoSt(ctx, req)
	if err != nil {
		return loadJob{}, fmt.Errorf("submit window PoSt: %w", err)
	}
	return loadJob{name: "window partition", id: id, verify: func(t testing.TB, res *api.JobResult) error {
		return verifyPoStResult(t, windowPoSt2KiB, rand, postSectors(sectors...), res)
	}}, nil
}

// must(t)(submitX(...)) stops the test when a submission on the test goroutine fails.
func must(t testing.TB) func(loadJob, error) loadJob {
	return func(j loadJob, err error) loadJob {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return j
	}
}

// verifyPoStResult checks a PoSt job's single partition proof, its type, and that no
// sector was skipped.
func verifyPoStResult(t testing.TB, ppt abi.RegisteredPoStProof, rand []byte, sectors []kit.PoStSector, res *api.JobResult) error {
	if res.PoSt == nil || len(res.PoSt.Proofs) != 1 || len(res.PoSt.Skipped) != 0 {
		return fmt.Errorf("PoSt result %+v: want one proof and no skipped sector", res.PoSt)
	}
	if got := res.PoSt.Proofs[0].PoStProof; got != ppt {
		return fmt.Errorf("proof labelled %v, want %v", got, ppt)
	}
	return kit.VerifyPoSt(t, ppt, rand, sectors, 0, res.PoSt.Proofs[0].ProofBytes)
}

// awaitAll waits for every job concurrently and verifies each proof.
func awaitAll(ctx context.Context, t testing.TB, c api.SnarkPipe, jobs []loadJob) []*api.JobResult {
	t.Helper()
	out := make([]*api.JobResult, len(jobs))
	errs := make([]error, len(jobs))
	var wg sync.WaitGroup
	for i, j := range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[i], errs[i] = c.AwaitJob(ctx, j.id)
		}()
	}
	wg.Wait()
	for i, j := range jobs {
		if errs[i] != nil {
			t.Fatalf("%s (%s): %v", j.name, j.id, errs[i])
		}
		if err := j.verify(t, out[i]); err != nil {
			t.Fatalf("%s (%s): proof: %v", j.name, j.id, err)
		}
	}
	return out
}

// waitPartitionsQueued polls Status until at least n partitions wait for synthesis, for
// at most within (0: one look).
// submitBatch submits n jobs at once (submit(i) for i < n) and fails the test on a refusal.
func submitBatch(t testing.TB, n int, submit func(i int) (loadJob, error)) []loadJob {
	t.Helper()
	jobs := make([]loadJob, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { jobs[i], errs[i] = submit(i) })
	}
	wg.Wait()
	for i, err := range errs {
		must(t)(jobs[i], err)
	}
	return jobs
}

func waitPartitionsQueued(ctx context.Context, t testing.TB, c api.SnarkPipe, n int, within time.Duration) bool {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		st, err := c.Status(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if st.PartitionsQueued >= n {
			return true
		}
		if !time.Now().Before(deadline) {
			return false
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// partitionStarts are the moments a job's partitions entered synthesis, from the stage
// timings the API returns: the job's submission time plus each partition's queue wait.
func partitionStarts(info api.JobInfo) []time.Time {
	out := make([]time.Time, len(info.Timings))
	for i, tm := range info.Timings {
		out[i] = info.Submitted.Add(tm.Queue)
	}
	return out
}

// startSlack absorbs the skew between a job's reported submission time and the moment
// its partitions were queued (microseconds: both are taken in the same call); priority
// violations show up as seconds, the length of a partition's synthesis.
const startSlack = 50 * time.Millisecond

// queueOrder compares the late job's first partition start with the partitions of the
// earlier jobs that were still waiting when the late job was submitted: waiting is how
// many there were, before lists those that nevertheless started clearly before the late
// job (a priority violation: priorities reorder the queue, so with the late job's higher
// priority there are none), after counts those that started clearly after it (with a
// lower-priority late job there are none). Starts within startSlack of the late job's
// (two workers freed at once) count as neither.
func queueOrder(late *api.JobResult, earlier []*api.JobResult) (waiting int, before []string, after int) {
	lateStart := partitionStarts(late.Info)[0]
	for _, res := range earlier {
		for k, start := range partitionStarts(res.Info) {
			if !start.After(late.Info.Submitted.Add(startSlack)) {
				continue // already running when the late job came
			}
			waiting++
			if start.Before(lateStart.Add(-startSlack)) {
				before = append(before, fmt.Sprintf("%s partition %d (%s priority) started %v before %s (%s priority)",
					res.Info.ID, k, res.Info.Priority, lateStart.Sub(start).Round(time.Millisecond), late.Info.ID, late.Info.Priority))
			}
			if start.After(lateStart.Add(startSlack)) {
				after++
			}
		}
	}
	return waiting, before, after
}

// checkJumpedQueue asserts that the late job started before every partition of the
// earlier jobs that was still waiting when it was submitted, and that there was at least
// one (otherwise the test proved nothing about priorities). It returns how many it
// overtook.
func checkJumpedQueue(t testing.TB, late *api.JobResult, earlier []*api.JobResult) int {
	t.Helper()
	waiting, before, _ := queueOrder(late, earlier)
	if waiting == 0 {
		t.Fatalf("no partition of the earlier jobs was still queued when %s was submitted: nothing to overtake", late.Info.ID)
	}
	for _, b := range before {
		t.Error(b)
	}
	return waiting
}

// reportLatency logs where the late job's time went, from the daemon's stage timings.
func reportLatency(t testing.TB, res *api.JobResult, wall time.Duration) {
	t.Helper()
	tm := res.Info.Timings[0]
	t.Logf("%s (%s priority): latency %v in the daemon (submitted → finished), %v at the client; queue %v, load %v, synthesis %v, hand-off %v, prove %v, verify %v",
		res.Info.ID, res.Info.Priority, res.Info.Finished.Sub(res.Info.Submitted).Round(time.Millisecond), wall.Round(time.Millisecond),
		tm.Queue.Round(time.Millisecond), tm.Load.Round(time.Millisecond), tm.Synth.Round(time.Millisecond),
		tm.Handoff.Round(time.Millisecond), tm.Prove.Round(time.Millisecond), tm.Verify.Round(time.Millisecond))
}
