package cuzk

import (
	"context"
	"io"
	"log/slog"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/filecoin-project/go-state-types/abi"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/peer"
	"google.golang.org/grpc/status"

	"github.com/snarkpipe/snarkpipe/rpc/cuzk/cuzkpb"
	"github.com/snarkpipe/snarkpipe/sealer"
	"github.com/snarkpipe/snarkpipe/types"
)

func testEngine(t *testing.T, f *fakeProver) *engine {
	e := newEngine(f, 100, slog.New(slog.NewTextHandler(io.Discard, nil)))
	t.Cleanup(func() { f.releaseAll(); e.stopWatchers() })
	return e
}

func porepRequest(t *testing.T, id string, sector uint64) *cuzkpb.SubmitProofRequest {
	return &cuzkpb.SubmitProofRequest{
		RequestId: id, ProofKind: cuzkpb.ProofKind_POREP_SEAL_COMMIT, SectorSize: 2048,
		RegisteredProof: uint64(abi.RegisteredSealProof_StackedDrg2KiBV1_1),
		VanillaProof:    c1Wrapper(t, []byte(`{"c1":1}`), sector, 2048), SectorNumber: sector, MinerId: 1000,
	}
}

func windowRequest(id string) *cuzkpb.SubmitProofRequest {
	return &cuzkpb.SubmitProofRequest{
		RequestId: id, ProofKind: cuzkpb.ProofKind_WINDOW_POST_PARTITION,
		RegisteredProof: uint64(abi.RegisteredPoStProof_StackedDrgWindow2KiBV1_1),
		VanillaProofs:   [][]byte{{1}}, MinerId: 1000, Randomness: seq(32, 0),
	}
}

func wantCode(t *testing.T, err error, code codes.Code, msgHas string) {
	t.Helper()
	st, ok := status.FromError(err)
	if !ok || st.Code() != code || !strings.Contains(st.Message(), msgHas) {
		t.Fatalf("got %v, want %s containing %q", err, code, msgHas)
	}
}

func TestSubmitRefusals(t *testing.T) {
	edit := func(r *cuzkpb.SubmitProofRequest, f func(*cuzkpb.SubmitProofRequest)) *cuzkpb.SubmitProofRequest {
		f(r)
		return r
	}
	for _, tc := range []struct {
		name   string
		req    *cuzkpb.SubmitProofRequest
		code   codes.Code
		msgHas string
	}{
		{"no kind", &cuzkpb.SubmitProofRequest{}, codes.InvalidArgument, "invalid proof_kind 0"},
		{"unknown kind", &cuzkpb.SubmitProofRequest{ProofKind: 9}, codes.InvalidArgument, "invalid proof_kind 9"},
		{"snap deals without commitments", &cuzkpb.SubmitProofRequest{ProofKind: cuzkpb.ProofKind_SNAP_DEALS_UPDATE}, codes.InvalidArgument, "comm_r_old must be exactly 32 bytes, got 0"},
		{"snap deals with a CID for comm_d_new", edit(snapRequest(), func(r *cuzkpb.SubmitProofRequest) { r.CommDNew = make([]byte, 40) }), codes.InvalidArgument, "comm_d_new must be exactly 32 bytes, got 40"},
		{"snap deals without vanilla", edit(snapRequest(), func(r *cuzkpb.SubmitProofRequest) { r.VanillaProofs = nil }), codes.InvalidArgument, "without vanilla_proofs"},
		{"snap deals with a seal proof number", edit(snapRequest(), func(r *cuzkpb.SubmitProofRequest) { r.RegisteredProof = 8 }), codes.InvalidArgument, "registered_proof 8"},
		{"snap deals size mismatch", edit(snapRequest(), func(r *cuzkpb.SubmitProofRequest) { r.SectorSize = 32 << 30 }), codes.InvalidArgument, "sector_size 34359738368"},
		{"porep without payload", edit(porepRequest(t, "a", 1), func(r *cuzkpb.SubmitProofRequest) { r.VanillaProof = nil }), codes.InvalidArgument, "without vanilla_proof"},
		{"porep raw C1 instead of wrapper", edit(porepRequest(t, "a", 1), func(r *cuzkpb.SubmitProofRequest) { r.VanillaProof = []byte(`{"registered_proof":"x"}`) }), codes.InvalidArgument, "vanilla_proof"},
		{"porep wrapper not JSON", edit(porepRequest(t, "a", 1), func(r *cuzkpb.SubmitProofRequest) { r.VanillaProof = []byte{0xff, 0} }), codes.InvalidArgument, "vanilla_proof"},
		{"porep sector mismatch", edit(porepRequest(t, "a", 1), func(r *cuzkpb.SubmitProofRequest) { r.SectorNumber = 2 }), codes.InvalidArgument, "SectorNum 1 differs from sector_number 2"},
		{"porep size mismatch", edit(porepRequest(t, "a", 1), func(r *cuzkpb.SubmitProofRequest) { r.SectorSize = 8 << 20 }), codes.InvalidArgument, "sector_size"},
		{"porep wrapper size mismatch", edit(porepRequest(t, "a", 1), func(r *cuzkpb.SubmitProofRequest) { r.VanillaProof = c1Wrapper(t, []byte("{}"), 1, 8<<20) }), codes.InvalidArgument, "SectorSize 8388608"},
		{"porep proof type overflow", edit(porepRequest(t, "a", 1), func(r *cuzkpb.SubmitProofRequest) { r.RegisteredProof = 1 << 63 }), codes.InvalidArgument, "out of range"},
		{"post short randomness", edit(windowRequest("w"), func(r *cuzkpb.SubmitProofRequest) { r.Randomness = r.Randomness[:31] }), codes.InvalidArgument, "exactly 32 bytes, got 31"},
		{"post no vanilla", edit(windowRequest("w"), func(r *cuzkpb.SubmitProofRequest) { r.VanillaProofs = nil }), codes.InvalidArgument, "without vanilla_proofs"},
		{"window kind with winning type", edit(windowRequest("w"), func(r *cuzkpb.SubmitProofRequest) {
			r.RegisteredProof = uint64(abi.RegisteredPoStProof_StackedDrgWinning2KiBV1)
		}), codes.InvalidArgument, "the request is Window"},
		{"winning with partition", edit(windowRequest("w"), func(r *cuzkpb.SubmitProofRequest) {
			r.ProofKind = cuzkpb.ProofKind_WINNING_POST
			r.RegisteredProof = uint64(abi.RegisteredPoStProof_StackedDrgWinning2KiBV1)
			r.PartitionIndex = 1
		}), codes.InvalidArgument, "partition_index 1"},
		{"unknown post type", edit(windowRequest("w"), func(r *cuzkpb.SubmitProofRequest) { r.RegisteredProof = 99 }), codes.InvalidArgument, "registered_proof 99"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeProver()
			e := testEngine(t, f)
			_, err := e.SubmitProof(context.Background(), tc.req)
			wantCode(t, err, tc.code, tc.msgHas)
			_, err = e.Prove(context.Background(), &cuzkpb.ProveRequest{Submit: tc.req})
			wantCode(t, err, tc.code, tc.msgHas)
			if len(f.seals)+len(f.posts)+len(f.updates) != 0 {
				t.Fatal("a refused request reached the service")
			}
		})
	}
	_, err := testEngine(t, newFakeProver()).Prove(context.Background(), &cuzkpb.ProveRequest{})
	wantCode(t, err, codes.InvalidArgument, "missing submit")
}

// TestServiceErrors: the service's typed refusals keep their message and get the gRPC
// code of their class; a failure after admission is a FAILED result, as cuzk answers.
func TestServiceErrors(t *testing.T) {
	for _, tc := range []struct {
		code sealer.Code
		want codes.Code
	}{
		{sealer.CodeInvalidInput, codes.InvalidArgument},
		{sealer.CodeUnsupported, codes.Unimplemented},
		{sealer.CodeUnavailable, codes.Unavailable},
		{sealer.CodeInternal, codes.Internal},
	} {
		f := newFakeProver()
		f.reject = &sealer.Error{Code: tc.code, ProofType: "StackedDrg2KiBV1_1", Msg: "comm_r check failed"}
		_, err := testEngine(t, f).Prove(context.Background(), &cuzkpb.ProveRequest{Submit: porepRequest(t, "p", 1)})
		wantCode(t, err, tc.want, "(StackedDrg2KiBV1_1): comm_r check failed")
	}

	f := newFakeProver()
	f.fail = &sealer.Error{Code: sealer.CodeInternal, Msg: "proof did not verify"}
	e := testEngine(t, f)
	res, err := e.Prove(context.Background(), &cuzkpb.ProveRequest{Submit: porepRequest(t, "p", 1)})
	if err != nil {
		t.Fatal(err)
	}
	r := res.GetResult()
	if r.GetStatus() != cuzkpb.AwaitProofResponse_FAILED || !strings.Contains(r.GetErrorMessage(), "proof did not verify") || r.GetJobId() != "p" || len(r.GetProof()) != 0 {
		t.Fatalf("failed job answered %v", r)
	}
}

func TestAwaitTimeoutAndCancel(t *testing.T) {
	f := newFakeProver()
	f.hold = true
	e := testEngine(t, f)
	ctx := context.Background()
	sub, err := e.SubmitProof(ctx, windowRequest("wd-1"))
	if err != nil {
		t.Fatal(err)
	}
	res, err := e.AwaitProof(ctx, &cuzkpb.AwaitProofRequest{JobId: sub.GetJobId(), TimeoutMs: 20})
	if err != nil || res.GetStatus() != cuzkpb.AwaitProofResponse_TIMEOUT || res.GetJobId() != "wd-1" {
		t.Fatalf("await with timeout: %v, %v", res, err)
	}
	// The job kept running: cancel it.
	c, err := e.CancelProof(ctx, &cuzkpb.CancelProofRequest{JobId: "wd-1"})
	if err != nil || !c.GetWasRunning() {
		t.Fatalf("cancel: %v, %v", c, err)
	}
	res, err = e.AwaitProof(ctx, &cuzkpb.AwaitProofRequest{JobId: "wd-1"})
	if err != nil || res.GetStatus() != cuzkpb.AwaitProofResponse_CANCELLED {
		t.Fatalf("await after cancel: %v, %v", res, err)
	}
	c, err = e.CancelProof(ctx, &cuzkpb.CancelProofRequest{JobId: "wd-1"})
	if err != nil || c.GetWasRunning() {
		t.Fatalf("second cancel: %v, %v", c, err)
	}

	_, err = e.AwaitProof(ctx, &cuzkpb.AwaitProofRequest{JobId: "nope"})
	wantCode(t, err, codes.NotFound, "nope")
	_, err = e.CancelProof(ctx, &cuzkpb.CancelProofRequest{JobId: "nope"})
	wantCode(t, err, codes.NotFound, "nope")
	_, err = e.AwaitProof(ctx, &cuzkpb.AwaitProofRequest{})
	wantCode(t, err, codes.InvalidArgument, "missing job_id")

	// A caller that goes away gets its context's code; the job is not cancelled.
	sub, _ = e.SubmitProof(ctx, windowRequest("wd-2"))
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	_, err = e.AwaitProof(cctx, &cuzkpb.AwaitProofRequest{JobId: sub.GetJobId()})
	wantCode(t, err, codes.Canceled, "")
	info, _ := f.Job(ctx, e.jobs.lookup("wd-2"))
	if info.State.Final() {
		t.Fatal("abandoned await cancelled the job")
	}
}

// TestIdempotentRequestID: resubmitting a request returns the same job, counted once; a
// request_id reused with other inputs is a new job.
func TestIdempotentRequestID(t *testing.T) {
	f := newFakeProver()
	e := testEngine(t, f)
	ctx := context.Background()
	for range 3 {
		res, err := e.Prove(ctx, &cuzkpb.ProveRequest{Submit: porepRequest(t, "porep-1000-5", 5)})
		if err != nil || res.GetResult().GetStatus() != cuzkpb.AwaitProofResponse_COMPLETED {
			t.Fatalf("%v %v", res, err)
		}
	}
	if len(f.jobs) != 1 {
		t.Fatalf("%d service jobs for one request_id", len(f.jobs))
	}
	waitFor(t, func() bool { return e.jobs.completed.Load() == 1 })
	time.Sleep(20 * time.Millisecond)
	if n := e.jobs.completed.Load(); n != 1 {
		t.Fatalf("completed counted %d times", n)
	}
	// The same request_id with another C1 output is another proof, not the cached one.
	other := porepRequest(t, "porep-1000-5", 5)
	other.VanillaProof = c1Wrapper(t, []byte(`{"c1":2}`), 5, 2048)
	res, err := e.Prove(ctx, &cuzkpb.ProveRequest{Submit: other})
	if err != nil || len(f.jobs) != 2 || string(res.GetResult().GetProof()) != string(fakeProof(1, []byte(`{"c1":2}`))) {
		t.Fatalf("same request_id, new input: %d jobs, %v, %v", len(f.jobs), res, err)
	}
	if id := e.jobs.lookup("porep-1000-5"); id != "seal-commit2-2" {
		t.Fatalf("request_id maps to %s, want the newest job", id)
	}

	// Without a request_id the service's job id is handed out and accepted back.
	sub, err := e.SubmitProof(ctx, porepRequest(t, "", 6))
	if err != nil || !strings.HasPrefix(sub.GetJobId(), "seal-commit2-") {
		t.Fatalf("%v %v", sub, err)
	}
	ares, err := e.AwaitProof(ctx, &cuzkpb.AwaitProofRequest{JobId: sub.GetJobId()})
	if err != nil || ares.GetStatus() != cuzkpb.AwaitProofResponse_COMPLETED {
		t.Fatalf("%v %v", ares, err)
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatal("condition not reached in 5 s")
}

func TestJobIndexBounded(t *testing.T) {
	x := newJobIndex(2)
	x.add("a", "j1")
	x.add("b", "j2")
	x.add("a", "j3") // a newer job for "a" replaces the old mapping
	if x.lookup("a") != "j3" || x.lookup("b") != "j2" {
		t.Fatalf("lookup a=%s b=%s", x.lookup("a"), x.lookup("b"))
	}
	x.add("c", "j4")
	if x.lookup("a") != "a" || x.lookup("c") != "j4" {
		t.Fatalf("oldest mapping not dropped: a=%s c=%s", x.lookup("a"), x.lookup("c"))
	}
	if _, first := x.add("d", "j4"); first {
		t.Fatal("same service job reported as new")
	}
}

func TestTimings(t *testing.T) {
	now := time.Now()
	out := &cuzkpb.AwaitProofResponse{}
	setTimings(out, &sealer.JobInfo{
		Submitted: now, Finished: now.Add(9 * time.Second),
		Timings: []sealer.StageTiming{
			{Queue: 2 * time.Second, Synth: time.Second, Prove: 3 * time.Second},
			{Queue: 1500 * time.Millisecond, Synth: time.Second, Prove: 2 * time.Second},
		},
	})
	if out.QueueWaitMs != 1500 || out.SynthesisMs != 2000 || out.GpuComputeMs != 5000 || out.TotalMs != 9000 || out.SrsLoadMs != 0 {
		t.Fatalf("timings %v", out)
	}
}

func TestStatusAndMetrics(t *testing.T) {
	f := newFakeProver()
	f.status = sealer.Status{
		Devices: []string{"NVIDIA H200"},
		Resident: []sealer.ResidentSRS{
			{CircuitID: "porep-32g", Where: "host", Bytes: 100, Pinned: true},
			{CircuitID: "porep-32g", Where: "device0", Bytes: 50},
			{CircuitID: "winning-2k", Where: "host", Bytes: 7},
		},
	}
	f.hold = true
	e := testEngine(t, f)
	ctx := context.Background()
	if _, err := e.SubmitProof(ctx, windowRequest("w")); err != nil {
		t.Fatal(err)
	}
	st, err := e.GetStatus(ctx, &cuzkpb.GetStatusRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Queues) != 4 || st.Queues[1].ProofKind != "window-post" || st.Queues[1].InProgress != 1 || st.Queues[0].InProgress+st.Queues[2].InProgress+st.Queues[3].InProgress != 0 {
		t.Fatalf("queues %v", st.Queues)
	}
	if len(st.Gpus) != 1 || st.Gpus[0].Name != "NVIDIA H200" || st.Gpus[0].Ordinal != 0 {
		t.Fatalf("gpus %v", st.Gpus)
	}
	if len(st.LoadedSrs) != 2 || st.LoadedSrs[0].CircuitId != "porep-32g" || st.LoadedSrs[0].Tier != cuzkpb.SRSStatus_HOT || st.LoadedSrs[0].SizeBytes != 150 ||
		st.LoadedSrs[1].Tier != cuzkpb.SRSStatus_WARM || st.PinnedMemoryBytes != 100 {
		t.Fatalf("srs %v pinned %d", st.LoadedSrs, st.PinnedMemoryBytes)
	}
	f.releaseAll()
	waitFor(t, func() bool { return e.jobs.completed.Load() == 1 })
	m, err := e.GetMetrics(ctx, &cuzkpb.GetMetricsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{"cuzk_proofs_completed_total 1\n", "cuzk_proofs_failed_total 0\n", "cuzk_gpu_workers 1\n", `cuzk_queue_jobs{proof_kind="window-post",state="in_progress"} 0`} {
		if !strings.Contains(m.PrometheusText, line) {
			t.Fatalf("metrics lack %q:\n%s", line, m.PrometheusText)
		}
	}
}

func TestPreloadEvict(t *testing.T) {
	f := newFakeProver()
	e := testEngine(t, f)
	ctx := context.Background()
	_, err := e.PreloadSRS(ctx, &cuzkpb.PreloadSrsRequest{CircuitId: "porep-32g"})
	wantCode(t, err, codes.Unavailable, "no parameters")
	f.preload = &sealer.PreloadResult{Resident: true, Took: 1500 * time.Millisecond}
	p, err := e.PreloadSRS(ctx, &cuzkpb.PreloadSrsRequest{CircuitId: "porep-32g"})
	if err != nil || p.AlreadyLoaded || p.LoadTimeMs != 1500 {
		t.Fatalf("%v %v", p, err)
	}
	if _, err = e.PreloadSRS(ctx, &cuzkpb.PreloadSrsRequest{CircuitId: "snap-32g"}); err != nil {
		t.Fatal(err)
	}
	if ref := f.preloaded[len(f.preloaded)-1]; ref.Update == nil || *ref.Update != abi.RegisteredUpdateProof_StackedDrg32GiBV1 || ref.Seal != nil || ref.PoSt != nil {
		t.Fatalf("snap-32g preloaded as %+v", ref)
	}
	_, err = e.EvictSRS(ctx, &cuzkpb.EvictSrsRequest{CircuitId: "porep-33g"})
	wantCode(t, err, codes.InvalidArgument, "unknown circuit_id")

	f.status.Resident = []sealer.ResidentSRS{{CircuitID: "wpost-32g", Bytes: 4096}}
	ev, err := e.EvictSRS(ctx, &cuzkpb.EvictSrsRequest{CircuitId: "wpost-32g"})
	if err != nil || !ev.WasLoaded || ev.FreedBytes != 4096 {
		t.Fatalf("%v %v", ev, err)
	}
	if ref := f.evicted[0]; ref.PoSt == nil || *ref.PoSt != abi.RegisteredPoStProof_StackedDrgWindow32GiBV1 {
		t.Fatalf("evicted %+v", ref)
	}
	ev, err = e.EvictSRS(ctx, &cuzkpb.EvictSrsRequest{CircuitId: "wpost-32g"})
	if err != nil || ev.WasLoaded || ev.FreedBytes != 0 {
		t.Fatalf("second evict %v %v", ev, err)
	}
}

// TestCircuitIDs: every circuit id of the proof tables resolves to a proof type of that
// circuit (cuzk names them porep-32g, wpost-32g, winning-32g).
func TestCircuitIDs(t *testing.T) {
	for _, id := range []string{"porep-2k", "porep-8m", "porep-512m", "porep-32g", "porep-64g", "wpost-2k", "wpost-32g", "wpost-64g", "winning-2k", "winning-32g", "winning-64g"} {
		ref, err := proofTypeOfCircuit(id)
		if err != nil {
			t.Fatalf("%s: %v", id, err)
		}
		var got string
		if ref.Seal != nil {
			info, _ := types.SealProof(*ref.Seal)
			got = info.CircuitID
		} else {
			info, _ := types.PoStProof(*ref.PoSt)
			got = info.CircuitID
		}
		if got != id {
			t.Fatalf("%s resolved to a proof type of %s", id, got)
		}
	}
}

// TestCheckPeer: the interceptor refuses calls whose peer is outside the allowlist, for
// servers given a listener that does not filter.
func TestCheckPeer(t *testing.T) {
	s, err := NewServer(tcpConfig(), newFakeProver())
	if err != nil {
		t.Fatal(err)
	}
	called := false
	h := func(ctx context.Context, req any) (any, error) { called = true; return nil, nil }
	for _, tc := range []struct {
		addr net.Addr
		ok   bool
	}{
		{&net.TCPAddr{IP: net.ParseIP("127.0.0.1")}, true},
		{&net.TCPAddr{IP: net.ParseIP("198.51.100.3")}, false},
		{&net.UnixAddr{Name: "@", Net: "unix"}, true},
	} {
		called = false
		ctx := peer.NewContext(context.Background(), &peer.Peer{Addr: tc.addr})
		_, err := s.checkPeer(ctx, nil, &grpc.UnaryServerInfo{}, h)
		if tc.ok != (err == nil) || called != tc.ok {
			t.Fatalf("%v: err %v, handler called %v", tc.addr, err, called)
		}
		if !tc.ok {
			wantCode(t, err, codes.PermissionDenied, "allowlist")
		}
	}
	_, err = s.checkPeer(context.Background(), nil, &grpc.UnaryServerInfo{}, h)
	wantCode(t, err, codes.PermissionDenied, "allowlist")
}

func snapRequest() *cuzkpb.SubmitProofRequest {
	return &cuzkpb.SubmitProofRequest{
		RequestId: "snap-1000-5", ProofKind: cuzkpb.ProofKind_SNAP_DEALS_UPDATE, SectorSize: 2048,
		RegisteredProof: uint64(abi.RegisteredUpdateProof_StackedDrg2KiBV1), Priority: cuzkpb.Priority_NORMAL,
		VanillaProofs: [][]byte{{1, 2}}, SectorNumber: 5, MinerId: 1000,
		CommROld: seq(32, 1), CommRNew: seq(32, 2), CommDNew: seq(32, 3),
	}
}

// TestSnapDeals: SnapDeals goes to the service's queued SubmitReplicaUpdate2 through
// Prove and through SubmitProof + AwaitProof (request_id as job id), shows in GetStatus as
// cuzk's "snap-update" queue, and a refusal by the service is its typed gRPC status.
func TestSnapDeals(t *testing.T) {
	f := newFakeProver()
	e := testEngine(t, f)
	ctx := context.Background()
	res, err := e.Prove(ctx, &cuzkpb.ProveRequest{Submit: snapRequest()})
	if err != nil || res.GetResult().GetStatus() != cuzkpb.AwaitProofResponse_COMPLETED || res.GetResult().GetJobId() != "snap-1000-5" ||
		string(res.GetResult().GetProof()) != string(fakeProof(1, seq(32, 2))) || res.GetResult().GetSynthesisMs() != 20 {
		t.Fatalf("%v %v", res, err)
	}
	u := f.updates[0]
	if u.Sector != (abi.SectorID{Miner: 1000, Number: 5}) || u.UpdateProofType != abi.RegisteredUpdateProof_StackedDrg2KiBV1 ||
		string(u.CommROld) != string(seq(32, 1)) || string(u.CommRNew) != string(seq(32, 2)) || string(u.CommDNew) != string(seq(32, 3)) || !strings.HasPrefix(u.Key, "snap-1000-5#") || len(u.VanillaProofs) != 1 {
		t.Fatalf("service got %+v", u)
	}

	f.hold = true
	req := snapRequest()
	req.RequestId, req.SectorNumber = "snap-1000-6", 6
	sub, err := e.SubmitProof(ctx, req)
	if err != nil || sub.GetJobId() != "snap-1000-6" {
		t.Fatalf("SubmitProof: %v %v", sub, err)
	}
	st, err := e.GetStatus(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var snapQueue *cuzkpb.QueueStatus
	for _, q := range st.GetQueues() {
		if q.GetProofKind() == "snap-update" {
			snapQueue = q
		}
	}
	if snapQueue == nil || snapQueue.GetInProgress() != 1 {
		t.Fatalf("GetStatus queues %v, want snap-update with 1 in progress", st.GetQueues())
	}
	aw, err := e.AwaitProof(ctx, &cuzkpb.AwaitProofRequest{JobId: "snap-1000-6", TimeoutMs: 20})
	if err != nil || aw.GetStatus() != cuzkpb.AwaitProofResponse_TIMEOUT {
		t.Fatalf("held job: %v %v", aw, err)
	}
	f.releaseAll()
	aw, err = e.AwaitProof(ctx, &cuzkpb.AwaitProofRequest{JobId: "snap-1000-6"})
	if err != nil || aw.GetStatus() != cuzkpb.AwaitProofResponse_COMPLETED || string(aw.GetProof()) != string(fakeProof(1, seq(32, 2))) {
		t.Fatalf("AwaitProof: %v %v", aw, err)
	}

	f.reject = &sealer.Error{Code: sealer.CodeInvalidInput, ProofType: "StackedDrg2KiBV1", Msg: "vanilla partition proofs: truncated"}
	_, err = e.Prove(ctx, &cuzkpb.ProveRequest{Submit: snapRequest()})
	wantCode(t, err, codes.InvalidArgument, "(StackedDrg2KiBV1): vanilla partition proofs: truncated")
	_, err = e.SubmitProof(ctx, snapRequest())
	wantCode(t, err, codes.InvalidArgument, "vanilla partition proofs: truncated")
}
