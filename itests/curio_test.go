package itests

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/snarkpipe/snarkpipe/itests/kit"
	"github.com/snarkpipe/snarkpipe/rpc/cuzk/cuzkpb"
)

// Curio reaches snarkpipe the way it reaches cuzk: its [Cuzk] Address points at the
// daemon's gRPC endpoint (here the unix socket the kit configures), it calls Prove with
// its own payloads and reads GetStatus for back-pressure. These tests play Curio over
// real gRPC against the real daemon process and check every proof with the dev
// verifying key and public inputs derived from the Filecoin data.

// TestCurioPoSt proves a Winning PoSt (CRITICAL) and a Window PoSt partition of two
// sectors (HIGH) through Prove and verifies both; GetStatus then counts two completed
// proofs and no failure, with nothing left in the queues.
func TestCurioPoSt(t *testing.T) {
	d := kit.StartDaemon(t, kit.DaemonOptions{})
	c := dialCurio(t, d.CuzkAddr, 4)
	s1, s2 := kit.Sector2KiB(t, 1), kit.Sector2KiB(t, 2)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()

	rand := randomness(1)
	start := time.Now()
	win, err := c.prove(ctx, curioWinning(t, s1, rand))
	if err != nil {
		t.Fatalf("winning: %v", err)
	}
	t.Logf("winning PoSt over gRPC: %v (daemon: total %d ms, queue %d ms)", time.Since(start), win.GetTotalMs(), win.GetQueueWaitMs())
	if err := kit.VerifyPoSt(t, winningPoSt2KiB, rand, postSectors(s1), 0, win.GetProof()); err != nil {
		t.Fatalf("winning proof: %v", err)
	}
	if err := kit.VerifyPoSt(t, winningPoSt2KiB, randomness(2), postSectors(s1), 0, win.GetProof()); err == nil {
		t.Fatal("winning proof verifies under other randomness")
	}

	req := curioWindow(t, []*kit.Sector{s1, s2}, rand)
	start = time.Now()
	wd, err := c.prove(ctx, req)
	if err != nil {
		t.Fatalf("window: %v", err)
	}
	t.Logf("window PoSt partition over gRPC: %v", time.Since(start))
	if err := kit.VerifyPoSt(t, windowPoSt2KiB, rand, postSectors(s1, s2), 0, wd.GetProof()); err != nil {
		t.Fatalf("window proof: %v", err)
	}
	if err := kit.VerifyPoSt(t, windowPoSt2KiB, rand, postSectors(s2, s1), 0, wd.GetProof()); err == nil {
		t.Fatal("window proof verifies with the sectors swapped")
	}
	if wd.GetJobId() != req.GetRequestId() {
		t.Errorf("job id %q, want the request_id %q (cuzk uses it verbatim)", wd.GetJobId(), req.GetRequestId())
	}

	st, err := c.status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.GetTotalProofsCompleted() != 2 || st.GetTotalProofsFailed() != 0 || inFlight(st) != 0 {
		t.Errorf("GetStatus after two proofs: completed %d, failed %d, in flight %d; want 2, 0, 0",
			st.GetTotalProofsCompleted(), st.GetTotalProofsFailed(), inFlight(st))
	}
}

// TestCurioPoRep sends a 2 KiB sector's C1 output as PoRepSnarkCuzk does (Commit2In
// wrapper, NORMAL, porep-<miner>-<sector>) and verifies the SealCommit2 proof. Expensive:
// a 2.7 M-constraint proof on the CPU.
func TestCurioPoRep(t *testing.T) {
	kit.Expensive(t)
	d := kit.StartDaemon(t, kit.DaemonOptions{})
	c := dialCurio(t, d.CuzkAddr, 4)
	s := kit.Sector2KiB(t, 3)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	start := time.Now()
	res, err := c.prove(ctx, curioPoRep(t, s, s.C1))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("2 KiB C2 over gRPC: %v (daemon: synthesis %d ms, proving %d ms, total %d ms)",
		time.Since(start), res.GetSynthesisMs(), res.GetGpuComputeMs(), res.GetTotalMs())
	if err := kit.VerifySeal(t, s.C1, res.GetProof()); err != nil {
		t.Fatalf("C2 proof: %v", err)
	}
	if err := kit.VerifySeal(t, kit.Sector2KiB(t, 4).C1, res.GetProof()); err == nil {
		t.Fatal("C2 proof verifies for another sector")
	}
}

// backPressureJobs is the daemon's max_jobs in the back-pressure test, and the
// maxPending of the Curio client that respects it.
const backPressureJobs = 2

// TestCurioBackPressure runs a daemon that admits at most two jobs. A Curio client with
// maxPending 2 proves four Window PoSt partitions from four concurrent tasks, gating each
// on its shared limiter and on GetStatus as Curio does: all four succeed, none is
// refused. A client that ignores GetStatus and submits a third job while two are in
// flight gets gRPC Unavailable (the service's temporary "max_jobs" refusal, which Curio
// retries); GetStatus meanwhile reports the two jobs. (Window partitions: the cheapest
// 2 KiB proofs, about 2 s each on the CPU.)
func TestCurioBackPressure(t *testing.T) {
	d := kit.StartDaemon(t, kit.DaemonOptions{ExtraConfig: fmt.Sprintf("[sealer]\nmax_jobs = %d\n", backPressureJobs)})
	sectors := []*kit.Sector{kit.Sector2KiB(t, 1), kit.Sector2KiB(t, 2)}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	verify := func(what string, rand, proof []byte) {
		t.Helper()
		if err := kit.VerifyPoSt(t, windowPoSt2KiB, rand, postSectors(sectors...), 0, proof); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}

	polite := dialCurio(t, d.CuzkAddr, backPressureJobs)
	const tasks = 4
	errs := make([]error, tasks)
	proofs := make([][]byte, tasks)
	var wg sync.WaitGroup
	for i := range tasks {
		req := curioWindow(t, sectors, randomness(100+i)) // on the test goroutine: it may stop the test
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := polite.proveWhenReady(ctx, req)
			if err == nil {
				proofs[i] = res.GetProof()
			}
			errs[i] = err
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("polite task %d refused: %v", i, err)
		}
		verify(fmt.Sprintf("polite task %d", i), randomness(100+i), proofs[i])
	}

	flood := dialCurio(t, d.CuzkAddr, 1<<20)
	var ids []string
	for i := range backPressureJobs {
		sub, err := flood.svc.SubmitProof(ctx, curioWindow(t, sectors, randomness(200+i)))
		if err != nil {
			t.Fatalf("flood submission %d within max_jobs: %v", i, err)
		}
		ids = append(ids, sub.GetJobId())
	}
	// The two jobs take seconds on the CPU; the refusal below comes within milliseconds.
	_, err := flood.prove(ctx, curioWindow(t, sectors, randomness(300)))
	if st, ok := status.FromError(err); !ok || st.Code() != codes.Unavailable || !strings.Contains(st.Message(), "max_jobs") {
		t.Fatalf("third job with two in flight: %v; want gRPC Unavailable naming max_jobs", err)
	}
	st, err := flood.status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if n := inFlight(st); n != backPressureJobs {
		t.Errorf("GetStatus counts %d jobs in flight, want %d", n, backPressureJobs)
	}
	if n, _ := polite.hasCapacity(ctx); n != 0 {
		t.Errorf("HasCapacity with the daemon full: %d, want 0", n)
	}
	for i, id := range ids {
		res, err := flood.svc.AwaitProof(ctx, &cuzkpb.AwaitProofRequest{JobId: id})
		if err != nil || res.GetStatus() != cuzkpb.AwaitProofResponse_COMPLETED {
			t.Fatalf("flood job %s: %v %v", id, res, err)
		}
		verify("flood job "+id, randomness(200+i), res.GetProof())
	}
	// Once they are done the daemon takes work again.
	res, err := flood.prove(ctx, curioWindow(t, sectors, randomness(300)))
	if err != nil {
		t.Fatalf("job after the queue drained: %v", err)
	}
	verify("job after the queue drained", randomness(300), res.GetProof())
}

// TestCurioSnapDealsRefused sends broken SnapDeals requests as ProveUpdateCuzk would: a
// flipped byte in a vanilla partition proof, a 31-byte comm_d_new, swapped comm_r old and
// new. Each is refused before proving with InvalidArgument naming what is wrong, and
// GetStatus counts no failed proof.
func TestCurioSnapDealsRefused(t *testing.T) {
	d := kit.StartDaemon(t, kit.DaemonOptions{})
	c := dialCurio(t, d.CuzkAddr, 4)
	snap := newSnapUpdate2KiB(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	for _, tc := range []struct {
		name string
		edit func(r *cuzkpb.SubmitProofRequest)
		want string
	}{
		{"flipped vanilla byte", func(r *cuzkpb.SubmitProofRequest) {
			v := append([]byte(nil), r.VanillaProofs[0]...)
			v[len(v)/2] ^= 1
			r.VanillaProofs = [][]byte{v}
		}, "inclusion path check failed"},
		{"short comm_d_new", func(r *cuzkpb.SubmitProofRequest) { r.CommDNew = r.CommDNew[:31] }, "comm_d_new must be exactly 32 bytes"},
		{"swapped comm_r", func(r *cuzkpb.SubmitProofRequest) { r.CommROld, r.CommRNew = r.CommRNew, r.CommROld }, "comm_r = Poseidon2(comm_c, comm_r_last) check failed at comm_r_old"},
	} {
		req := snap.curioSnap()
		tc.edit(req)
		_, err := c.prove(ctx, req)
		t.Logf("%s: %v", tc.name, err)
		if st, ok := status.FromError(err); !ok || st.Code() != codes.InvalidArgument || !strings.Contains(st.Message(), tc.want) {
			t.Errorf("%s: %v; want InvalidArgument containing %q", tc.name, err, tc.want)
		}
	}
	st, err := c.status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.GetTotalProofsFailed() != 0 || st.GetTotalProofsCompleted() != 0 {
		t.Errorf("GetStatus after refusals only: completed %d, failed %d", st.GetTotalProofsCompleted(), st.GetTotalProofsFailed())
	}
}

// TestCurioSnapDeals proves a 2 KiB SnapDeals update through Prove with Curio's payload
// and verifies it. Expensive: minutes on 2 CPU cores (and the update circuit's dev
// parameters on a cold cache).
func TestCurioSnapDeals(t *testing.T) {
	kit.Expensive(t)
	d := kit.StartDaemon(t, kit.DaemonOptions{})
	c := dialCurio(t, d.CuzkAddr, 4)
	snap := newSnapUpdate2KiB(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	start := time.Now()
	res, err := c.prove(ctx, snap.curioSnap())
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("2 KiB SnapDeals update over gRPC: %v", time.Since(start))
	if err := snap.verify(t, res.GetProof()); err != nil {
		t.Fatalf("update proof: %v", err)
	}
	other := newSnapUpdate2KiB(t)
	other.u.CommRNew[0] ^= 1
	if err := other.verify(t, res.GetProof()); err == nil {
		t.Fatal("update proof verifies with another comm_r_new")
	}
}
