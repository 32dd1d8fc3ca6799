package itests

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/filecoin-project/go-state-types/abi"

	"github.com/snarkpipe/snarkpipe/itests/kit"
	"github.com/snarkpipe/snarkpipe/rpc/api"
)

// Mixed load under a small host memory budget: many jobs of every kind in flight at
// once, every proof valid, and a Winning PoSt that arrives behind queued partitions of
// lower priority starts before them. The start times come from the stage timings the
// native API returns with each job (JobInfo.Submitted + StageTiming.Queue per
// partition); their latency is logged for docs/BENCHMARKS.md, not asserted.

// TestLoadWinningOvertakesWindow is the fast subset: Window PoSt partitions (HIGH) are
// queued behind the synthesis workers of a daemon with a 1 GiB host budget, then a
// Winning PoSt (CRITICAL) is submitted; it starts before every Window partition that was
// still waiting, and all proofs verify.
func TestLoadWinningOvertakesWindow(t *testing.T) {
	late, windows, wall := winningBehindWindows(t, "")
	n := checkJumpedQueue(t, late, windows)
	t.Logf("%d Window PoSt jobs; the Winning PoSt overtook the %d partitions still queued", len(windows), n)
	reportLatency(t, late, wall)
}

// TestLoadPriorityControl is the control of the test above: with winning_priority =
// "low" the same Winning PoSt must wait for every queued Window partition, which shows
// that the start times read from the API do reveal the queue order. Expensive: it only
// checks the check.
func TestLoadPriorityControl(t *testing.T) {
	kit.Expensive(t)
	late, windows, _ := winningBehindWindows(t, "[sealer]\nwinning_priority = \"low\"\n")
	waiting, before, after := queueOrder(late, windows)
	if waiting == 0 || len(before) == 0 || after != 0 {
		t.Fatalf("low-priority Winning PoSt: %d Window partitions waiting, %d started before it, %d after it; want some before and none after", waiting, len(before), after)
	}
}

// winningBehindWindows starts a daemon with a 1 GiB host budget (and extraConfig),
// submits Window PoSt jobs until at least four partitions wait for synthesis, then one
// Winning PoSt; it returns the verified results and the Winning PoSt's latency at the
// client.
func winningBehindWindows(t *testing.T, extraConfig string) (late *api.JobResult, windows []*api.JobResult, wall time.Duration) {
	d := kit.StartDaemon(t, kit.DaemonOptions{HostMemory: "1GiB", SynthesisWorkers: 1, ExtraConfig: extraConfig})
	c := d.Client(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	sectors := []*kit.Sector{kit.Sector2KiB(t, 1), kit.Sector2KiB(t, 2)}

	// Warm up: the first Winning PoSt loads its parameters and recording, which is not
	// the latency to report.
	awaitAll(ctx, t, c, []loadJob{must(t)(submitWinning(ctx, c, sectors[0], randomness(401)))})

	// Window jobs go in in concurrent batches: on a GPU a 2 KiB partition is proved in
	// milliseconds, and jobs submitted one at a time can drain as fast as they arrive.
	// The late job goes in once minQueued partitions wait: on an H200 the queue drains at
	// about ten partitions a second, and with only two queued the control test saw them
	// all start before the late job was in (they count as waiting only if they start
	// more than startSlack after its submission).
	const batch, rounds, minQueued = 4, 8, 4
	var jobs []loadJob
	for r := 0; len(jobs) < 3 || !waitPartitionsQueued(ctx, t, c, minQueued, 0); r++ {
		if r == rounds {
			t.Fatalf("%d Window PoSt jobs and still fewer than %d partitions queued", len(jobs), minQueued)
		}
		jobs = append(jobs, submitBatch(t, batch, func(i int) (loadJob, error) {
			return submitWindow(ctx, c, sectors, randomness(410+r*batch+i))
		})...)
	}
	start := time.Now()
	lateJob := must(t)(submitWinning(ctx, c, sectors[1], randomness(450)))
	late = awaitAll(ctx, t, c, []loadJob{lateJob})[0]
	wall = time.Since(start)
	return late, awaitAll(ctx, t, c, jobs), wall
}

// loadC2Jobs is the least number of C2 jobs in the mixed load; more are added until
// partitions are seen waiting (a machine with more synthesis workers starts more at once).
const loadC2Jobs = 3

// TestLoadMixed puts 2 KiB C2 jobs, then 8 Window and 8 Winning PoSt jobs submitted
// concurrently, then one more Winning PoSt, in flight at once on a daemon with a 3 GiB
// host budget (the 2 KiB PoRep dev parameters alone are 1.1 GB): at least 20 jobs, all
// proofs valid; the last Winning PoSt starts before every C2 partition that was still
// queued when it was submitted. Expensive: several 2 KiB C2 proofs on the CPU.
func TestLoadMixed(t *testing.T) {
	kit.Expensive(t)
	d := kit.StartDaemon(t, kit.DaemonOptions{HostMemory: "3GiB", SynthesisWorkers: 1})
	c := d.Client(t)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Minute)
	defer cancel()
	sectors := make([]*kit.Sector, 8)
	for i := range sectors {
		sectors[i] = kit.Sector2KiB(t, abi.SectorNumber(10+i))
	}

	// In pairs submitted at once, as the Window jobs above (a GPU proves 2 KiB fast).
	var c2 []loadJob
	for r := 0; len(c2) < loadC2Jobs || !waitPartitionsQueued(ctx, t, c, 2, 2*time.Second); r++ {
		if r == 8 {
			t.Fatalf("%d C2 jobs and still fewer than 2 partitions queued", len(c2))
		}
		c2 = append(c2, submitBatch(t, 2, func(i int) (loadJob, error) {
			return submitC2(ctx, c, sectors[(2*r+i)%len(sectors)])
		})...)
	}

	posts := make([]loadJob, 16)
	errs := make([]error, len(posts))
	var wg sync.WaitGroup
	for i := range posts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if i%2 == 0 {
				posts[i], errs[i] = submitWindow(ctx, c, sectors[i%8:i%8+2], randomness(500+i))
			} else {
				posts[i], errs[i] = submitWinning(ctx, c, sectors[i%8], randomness(500+i))
			}
		}()
	}
	wg.Wait()
	for i, err := range errs {
		must(t)(posts[i], err)
	}

	rand := randomness(600)
	start := time.Now()
	late := must(t)(submitWinning(ctx, c, sectors[3], rand))
	lateRes := awaitAll(ctx, t, c, []loadJob{late})[0]
	wall := time.Since(start)
	awaitAll(ctx, t, c, posts)
	c2Res := awaitAll(ctx, t, c, c2)

	n := checkJumpedQueue(t, lateRes, c2Res)
	t.Logf("%d jobs (%d C2, 16 PoSt, the late Winning PoSt); it overtook %d queued C2 partitions", len(c2)+len(posts)+1, len(c2), n)
	reportLatency(t, lateRes, wall)
	st, err := c.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for kind, q := range st.Queues {
		if q.Failed != 0 || q.Running != 0 || q.Queued != 0 {
			t.Errorf("%s after the load: %+v, want only done jobs", kind, q)
		}
	}
}
