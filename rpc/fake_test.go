package rpc

import (
	"context"
	"net"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/filecoin-project/go-state-types/abi"
	"github.com/filecoin-project/go-state-types/proof"

	"github.com/snarkpipe/snarkpipe/rpc/api"
	"github.com/snarkpipe/snarkpipe/rpc/client"
	"github.com/snarkpipe/snarkpipe/sealer"
)

// fakeService answers every call with canned values, or with err when set, and records
// the last SealCommit2 request.
type fakeService struct {
	mu      sync.Mutex
	err     error
	lastC2  *sealer.SealCommit2Request
	lastRef sealer.ProofTypeRef // of the last Preload or Evict
	block   chan struct{}       // when set, SealCommit2 waits for it (or ctx)
	proof   []byte
	calls   int
	started chan struct{}
}

func (f *fakeService) fail() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls++
	return f.err
}

func (f *fakeService) SealCommit2(ctx context.Context, req *sealer.SealCommit2Request) (*sealer.SealCommit2Response, error) {
	if err := f.fail(); err != nil {
		return nil, err
	}
	f.mu.Lock()
	f.lastC2 = req
	block, started := f.block, f.started
	f.mu.Unlock()
	if started != nil {
		close(started)
	}
	if block != nil {
		select {
		case <-block:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return &sealer.SealCommit2Response{Proof: f.proof, Job: sealer.JobInfo{ID: "seal-commit2-1", Kind: sealer.JobSealCommit2, State: sealer.JobDone,
		Timings: []sealer.StageTiming{{Partition: 0, Prove: time.Second}}}}, nil
}

func (f *fakeService) SubmitSealCommit2(ctx context.Context, req *sealer.SealCommit2Request) (sealer.JobID, error) {
	return "seal-commit2-1", f.fail()
}

func (f *fakeService) post(req *sealer.PoStRequest) (*sealer.PoStResponse, error) {
	if err := f.fail(); err != nil {
		return nil, err
	}
	return &sealer.PoStResponse{Proofs: []proof.PoStProof{{PoStProof: req.ProofType, ProofBytes: f.proof}}, Skipped: []abi.SectorID{}}, nil
}

func (f *fakeService) GenerateWinningPoSt(ctx context.Context, req *sealer.PoStRequest) (*sealer.PoStResponse, error) {
	return f.post(req)
}

func (f *fakeService) GenerateWindowPoSt(ctx context.Context, req *sealer.PoStRequest) (*sealer.PoStResponse, error) {
	return f.post(req)
}

func (f *fakeService) SubmitWinningPoSt(ctx context.Context, req *sealer.PoStRequest) (sealer.JobID, error) {
	return "winning-post-1", f.fail()
}

func (f *fakeService) SubmitWindowPoSt(ctx context.Context, req *sealer.PoStRequest) (sealer.JobID, error) {
	return "window-post-1", f.fail()
}

func (f *fakeService) Await(ctx context.Context, id sealer.JobID) (*sealer.JobResult, error) {
	if err := f.fail(); err != nil {
		return nil, err
	}
	return &sealer.JobResult{Info: sealer.JobInfo{ID: id, State: sealer.JobDone}, Proof: f.proof}, nil
}

func (f *fakeService) Job(ctx context.Context, id sealer.JobID) (*sealer.JobInfo, error) {
	if err := f.fail(); err != nil {
		return nil, err
	}
	return &sealer.JobInfo{ID: id, State: sealer.JobRunning}, nil
}

func (f *fakeService) Cancel(ctx context.Context, id sealer.JobID) error { return f.fail() }

func (f *fakeService) Status(ctx context.Context) (*sealer.Status, error) {
	if err := f.fail(); err != nil {
		return nil, err
	}
	return &sealer.Status{Backend: "fake", Queues: map[sealer.JobKind]sealer.QueueStatus{sealer.JobWindowPoSt: {Running: 1}}}, nil
}

func (f *fakeService) Preload(ctx context.Context, ref sealer.ProofTypeRef) (*sealer.PreloadResult, error) {
	f.mu.Lock()
	f.lastRef = ref
	f.mu.Unlock()
	if err := f.fail(); err != nil {
		return nil, err
	}
	return &sealer.PreloadResult{CircuitID: "wpost-2k", Provenance: "dev test"}, nil
}

func (f *fakeService) Evict(ctx context.Context, ref sealer.ProofTypeRef) (bool, error) {
	f.mu.Lock()
	f.lastRef = ref
	f.mu.Unlock()
	return true, f.fail()
}

func (f *fakeService) ProveReplicaUpdate2(ctx context.Context, req *sealer.ReplicaUpdateRequest) (*sealer.ReplicaUpdateResponse, error) {
	if err := f.fail(); err != nil {
		return nil, err
	}
	return &sealer.ReplicaUpdateResponse{Proof: f.proof}, nil
}

var testSecret = []byte("0123456789abcdef0123456789abcdef")

// serve starts the API on 127.0.0.1:0 and returns its base URL.
func serve(t testing.TB, cfg Config, svc Service) string {
	t.Helper()
	h, err := NewHandler(cfg, svc, testSecret)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return "http://" + ln.Addr().String()
}

func token(t testing.TB, perm string) string {
	t.Helper()
	tok, err := NewToken(testSecret, perm)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

func dial(t testing.TB, url, tok string) api.SnarkPipe {
	t.Helper()
	c, closer, err := client.New(context.Background(), url, tok)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(closer)
	return c
}

// wantCode fails unless err is an *api.Error with the given code.
func wantCode(t testing.TB, what string, err error, code api.Code) *api.Error {
	t.Helper()
	if err == nil {
		t.Fatalf("%s: no error, want code %d (%s)", what, code, code)
	}
	e, ok := err.(*api.Error)
	if !ok {
		t.Fatalf("%s: error %T %v, want *api.Error code %d", what, err, err, code)
	}
	if e.Code != code {
		t.Fatalf("%s: code %d (%v), want %d (%s)", what, e.Code, e, code, code)
	}
	return e
}
