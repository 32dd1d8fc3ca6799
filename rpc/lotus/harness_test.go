package lotus_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/filecoin-project/go-fil-commcid"
	"github.com/filecoin-project/go-jsonrpc"
	"github.com/filecoin-project/go-jsonrpc/auth"
	"github.com/filecoin-project/go-state-types/abi"
	"github.com/filecoin-project/go-state-types/proof"
	"github.com/filecoin-project/lotus/storage/sealer/sealtasks"
	"github.com/filecoin-project/lotus/storage/sealer/storiface"
	"github.com/google/uuid"
	"github.com/ipfs/go-cid"

	"github.com/snarkpipe/snarkpipe/rpc/lotus"
	"github.com/snarkpipe/snarkpipe/sealer"
)

// Tokens of the test miner: what it calls workers with, and what workers call it with.
const (
	minerToken  = "miner-admin-token"
	readToken   = "miner-read-token"
	workerToken = "worker-token-for-the-miner"
)

// workerClient is the miner's view of a worker: the lotus api.Worker methods by their
// lotus names, filled by go-jsonrpc (namespace Filecoin), as lotus' NewWorkerRPCV0 does.
type workerClient struct {
	Version             func(ctx context.Context) (lotus.Version, error)
	Session             func(ctx context.Context) (uuid.UUID, error)
	ProcessSession      func(ctx context.Context) (uuid.UUID, error)
	Info                func(ctx context.Context) (storiface.WorkerInfo, error)
	TaskTypes           func(ctx context.Context) (map[sealtasks.TaskType]struct{}, error)
	Paths               func(ctx context.Context) ([]storiface.StoragePath, error)
	Enabled             func(ctx context.Context) (bool, error)
	SetEnabled          func(ctx context.Context, enabled bool) error
	TaskEnable          func(ctx context.Context, tt sealtasks.TaskType) error
	TaskDisable         func(ctx context.Context, tt sealtasks.TaskType) error
	StorageLocal        func(ctx context.Context) (map[storiface.ID]string, error)
	WaitQuiet           func(ctx context.Context) error
	Shutdown            func(ctx context.Context) error
	SealCommit2         func(ctx context.Context, sector storiface.SectorRef, c1o storiface.Commit1Out) (storiface.CallID, error)
	ProveReplicaUpdate2 func(ctx context.Context, sector storiface.SectorRef, sectorKey, newSealed, newUnsealed cid.Cid, vanillaProofs storiface.ReplicaVanillaProofs) (storiface.CallID, error)
	GenerateWindowPoSt  func(ctx context.Context, ppt abi.RegisteredPoStProof, mid abi.ActorID, sectors []storiface.PostSectorChallenge, partitionIdx int, randomness abi.PoStRandomness) (storiface.WindowPoStResult, error)
	GenerateWinningPoSt func(ctx context.Context, ppt abi.RegisteredPoStProof, mid abi.ActorID, sectors []storiface.PostSectorChallenge, randomness abi.PoStRandomness) ([]proof.PoStProof, error)
}

func dialWorker(t testing.TB, url, token string) *workerClient {
	t.Helper()
	var c workerClient
	h := http.Header{}
	if token != "" {
		h.Set("Authorization", "Bearer "+token)
	}
	closer, err := jsonrpc.NewMergeClient(context.Background(), url, "Filecoin", []any{&c}, h)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(closer)
	return &c
}

// returned is one ReturnSealCommit2 or ReturnProveReplicaUpdate2 the test miner received.
type returned struct {
	Method string // "SealCommit2" or "ProveReplicaUpdate2"
	ID     storiface.CallID
	Proof  []byte
	Err    *storiface.CallError
}

// testMiner is a lotus-miner endpoint: Version, Session, WorkerConnect (which dials the
// worker back and checks Version, Session, Info and TaskTypes as lotus' AddWorker does),
// AuthVerify, ReturnSealCommit2, ReturnProveReplicaUpdate2 and StorageFindSector.
type testMiner struct {
	t   testing.TB
	srv *httptest.Server

	mu         sync.Mutex
	apiVersion lotus.Version
	downFor    int // Version calls to fail (a miner still starting)
	session    uuid.UUID
	workers    map[string]*workerClient // by URL
	results    map[storiface.CallID]returned
	dups       int
	failNext   int // Return calls to refuse before accepting
	stores     map[abi.SectorNumber][]storiface.SectorStorageInfo
	updated    map[abi.SectorNumber]bool // snapped sectors: their vanilla comes from the update files
	rawBody    [][]byte                  // raw Return* request bodies

	connected map[string]int // WorkerConnect calls per URL
	returns   chan returned
}

func newTestMiner(t testing.TB) *testMiner {
	m := &testMiner{
		t: t, apiVersion: lotus.MinerAPIVersion, session: uuid.New(), workers: map[string]*workerClient{}, results: map[storiface.CallID]returned{},
		stores: map[abi.SectorNumber][]storiface.SectorStorageInfo{}, updated: map[abi.SectorNumber]bool{}, connected: map[string]int{}, returns: make(chan returned, 64),
	}
	rpc := jsonrpc.NewServer()
	rpc.Register("Filecoin", &testMinerAPI{m: m})
	m.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+workerToken {
			http.Error(w, "bad token", http.StatusUnauthorized)
			return
		}
		body, _ := io.ReadAll(r.Body)
		if bytes.Contains(body, []byte(`"Filecoin.ReturnSealCommit2"`)) || bytes.Contains(body, []byte(`"Filecoin.ReturnProveReplicaUpdate2"`)) {
			m.mu.Lock()
			m.rawBody = append(m.rawBody, body)
			m.mu.Unlock()
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		rpc.ServeHTTP(w, r)
	}))
	t.Cleanup(m.srv.Close)
	return m
}

func (m *testMiner) apiInfo() lotus.APIInfo {
	return lotus.APIInfo{Token: workerToken, URL: m.srv.URL + "/rpc/v0"}
}

func (m *testMiner) client(t testing.TB) *lotus.MinerClient {
	c, closer, err := lotus.DialMiner(context.Background(), m.apiInfo())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(closer)
	return c
}

func (m *testMiner) worker(url string) *workerClient {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.workers[url]
}

func (m *testMiner) setSession(u uuid.UUID) {
	m.mu.Lock()
	m.session = u
	m.mu.Unlock()
}

// waitConnect waits until url has been connected n times in all.
func (m *testMiner) waitConnect(t testing.TB, url string) { m.waitConnects(t, url, 1) }

func (m *testMiner) waitConnects(t testing.TB, url string, n int) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for m.connectCount(url) < n {
		if time.Now().After(deadline) {
			t.Fatalf("WorkerConnect(%s) seen %d times, want %d", url, m.connectCount(url), n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func (m *testMiner) connectCount(url string) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.connected[url]
}

func (m *testMiner) waitReturn(t testing.TB, d time.Duration) returned {
	t.Helper()
	select {
	case r := <-m.returns:
		return r
	case <-time.After(d):
		t.Fatal("no Return call received")
	}
	return returned{}
}

func (m *testMiner) expectNoReturn(t testing.TB, d time.Duration) {
	t.Helper()
	select {
	case r := <-m.returns:
		t.Fatalf("unexpected Return call %+v", r)
	case <-time.After(d):
	}
}

type testMinerAPI struct{ m *testMiner }

func (a *testMinerAPI) Version(context.Context) (lotus.APIVersion, error) {
	a.m.mu.Lock()
	defer a.m.mu.Unlock()
	if a.m.downFor > 0 {
		a.m.downFor--
		return lotus.APIVersion{}, errors.New("miner starting")
	}
	return lotus.APIVersion{Version: "1.36.3+test", APIVersion: a.m.apiVersion, BlockDelay: 30}, nil
}

func (a *testMinerAPI) Session(context.Context) (uuid.UUID, error) {
	a.m.mu.Lock()
	defer a.m.mu.Unlock()
	return a.m.session, nil
}

func (a *testMinerAPI) AuthVerify(_ context.Context, token string) ([]auth.Permission, error) {
	switch token {
	case minerToken:
		return []auth.Permission{"read", "write", "sign", "admin"}, nil
	case readToken:
		return []auth.Permission{"read"}, nil
	}
	return nil, errors.New("JWT verification failed")
}

// WorkerConnect does what lotus' connectRemoteWorker + AddWorker do with a new worker.
func (a *testMinerAPI) WorkerConnect(ctx context.Context, url string) error {
	w := dialWorker(a.m.t, url, minerToken)
	v, err := w.Version(ctx)
	if err != nil {
		return err
	}
	if !v.SameMajorMinor(lotus.WorkerAPIVersion) {
		return fmt.Errorf("worker API version %s", v)
	}
	s, err := w.Session(ctx)
	if err != nil || s == uuid.Nil {
		return fmt.Errorf("worker session %v: %v", s, err)
	}
	if _, err := w.Info(ctx); err != nil {
		return err
	}
	if _, err := w.TaskTypes(ctx); err != nil {
		return err
	}
	a.m.mu.Lock()
	a.m.workers[url] = w
	a.m.connected[url]++
	a.m.mu.Unlock()
	return nil
}

func (a *testMinerAPI) ReturnSealCommit2(_ context.Context, ci storiface.CallID, p storiface.Proof, cerr *storiface.CallError) error {
	return a.m.accept(returned{Method: "SealCommit2", ID: ci, Proof: p, Err: cerr})
}

func (a *testMinerAPI) ReturnProveReplicaUpdate2(_ context.Context, ci storiface.CallID, p storiface.ReplicaUpdateProof, cerr *storiface.CallError) error {
	return a.m.accept(returned{Method: "ProveReplicaUpdate2", ID: ci, Proof: p, Err: cerr})
}

// accept records a result like lotus' Manager.returnResult: once per CallID, whatever
// the Return method.
func (m *testMiner) accept(r returned) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.failNext > 0 {
		m.failNext--
		return errors.New("miner busy")
	}
	if _, ok := m.results[r.ID]; ok {
		m.dups++
		return fmt.Errorf("result for call %v already reported", r.ID)
	}
	m.results[r.ID] = r
	m.returns <- r
	return nil
}

func (a *testMinerAPI) StorageFindSector(_ context.Context, sid abi.SectorID, ft storiface.SectorFileType, _ abi.SectorSize, _ bool) ([]storiface.SectorStorageInfo, error) {
	a.m.mu.Lock()
	defer a.m.mu.Unlock()
	want := storiface.FTSealed | storiface.FTCache
	if a.m.updated[sid.Number] {
		want = storiface.FTUpdate | storiface.FTUpdateCache
	}
	if ft != want {
		return nil, fmt.Errorf("sector %d: asked for file types %v, want %v", sid.Number, ft, want)
	}
	return a.m.stores[sid.Number], nil
}

// testStorage is a storage endpoint serving POST /remote/vanilla/single like lotus'
// FetchHandler: 200 with the vanilla bytes, 404 when it does not have the sector, 500 for
// sectors marked broken; hang makes a sector's read block until the client gives up.
type testStorage struct {
	srv     *httptest.Server
	mu      sync.Mutex
	vanilla map[abi.SectorNumber][]byte
	broken  map[abi.SectorNumber]bool
	hang    map[abi.SectorNumber]bool
	params  []json.RawMessage

	inflight, maxInflight atomic.Int64
	delay                 time.Duration
}

func newTestStorage(t testing.TB) *testStorage {
	s := &testStorage{vanilla: map[abi.SectorNumber][]byte{}, broken: map[abi.SectorNumber]bool{}, hang: map[abi.SectorNumber]bool{}}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /remote/vanilla/single", s.serve)
	s.srv = httptest.NewServer(mux)
	t.Cleanup(s.srv.Close)
	return s
}

func (s *testStorage) baseURL() string { return s.srv.URL + "/remote" }

func (s *testStorage) serve(w http.ResponseWriter, r *http.Request) {
	n := s.inflight.Add(1)
	defer s.inflight.Add(-1)
	for {
		m := s.maxInflight.Load()
		if n <= m || s.maxInflight.CompareAndSwap(m, n) {
			break
		}
	}
	if r.Header.Get("Authorization") != "Bearer "+workerToken {
		http.Error(w, "bad token", http.StatusUnauthorized)
		return
	}
	body, _ := io.ReadAll(r.Body)
	var p struct {
		Miner     abi.ActorID
		Sector    storiface.PostSectorChallenge
		ProofType abi.RegisteredPoStProof
	}
	if err := json.Unmarshal(body, &p); err != nil {
		http.Error(w, err.Error(), 500)
		return
	}
	s.mu.Lock()
	s.params = append(s.params, body)
	v, ok := s.vanilla[p.Sector.SectorNumber]
	broken, hang, delay := s.broken[p.Sector.SectorNumber], s.hang[p.Sector.SectorNumber], s.delay
	s.mu.Unlock()
	time.Sleep(delay)
	switch {
	case hang:
		<-r.Context().Done()
		return
	case broken:
		http.Error(w, "reading sector: input/output error", 500)
	case !ok:
		http.NotFound(w, r)
	default:
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Write(v)
	}
}

// fakeProver answers without proving: the C2 proof is sha256(C1) ‖ sector number, the
// update proof sha256(comm_r_new ‖ vanilla proofs), PoSt proofs are 192 bytes naming the
// vanilla proofs' count. Gate, when set, holds every C2 and update until it is closed (or
// the worker gives up). snap makes the update proof types servable.
type fakeProver struct {
	mu        sync.Mutex
	gate      chan struct{}
	c2        int
	proofs    map[sealer.JobID][]byte
	keys      []string
	postReq   []*sealer.PoStRequest
	updateReq []*sealer.ReplicaUpdateRequest
	snap      bool
}

func fakeC2Proof(c1 []byte, n abi.SectorNumber) []byte {
	h := sha256.Sum256(c1)
	return append(h[:], byte(n))
}

func (p *fakeProver) SubmitSealCommit2(_ context.Context, req *sealer.SealCommit2Request) (sealer.JobID, error) {
	if bytes.Equal(req.C1, []byte("invalid")) {
		return "", &sealer.Error{Code: sealer.CodeInvalidInput, Msg: "C1 output: not JSON"}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.c2++
	p.keys = append(p.keys, req.Key)
	id := sealer.JobID(fmt.Sprintf("seal-commit2-%d", p.c2))
	if p.proofs == nil {
		p.proofs = map[sealer.JobID][]byte{}
	}
	p.proofs[id] = fakeC2Proof(req.C1, req.Sector.Number)
	return id, nil
}

func fakeUpdateProof(req *sealer.ReplicaUpdateRequest) []byte {
	h := sha256.New()
	h.Write(req.CommRNew)
	for _, v := range req.VanillaProofs {
		h.Write(v)
	}
	return h.Sum(nil)
}

func (p *fakeProver) SubmitReplicaUpdate2(_ context.Context, req *sealer.ReplicaUpdateRequest) (sealer.JobID, error) {
	if len(req.VanillaProofs) == 1 && bytes.Equal(req.VanillaProofs[0], []byte("invalid")) {
		return "", &sealer.Error{Code: sealer.CodeInvalidInput, Msg: "vanilla partition proofs: truncated"}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.c2++
	p.keys = append(p.keys, req.Key)
	p.updateReq = append(p.updateReq, req)
	id := sealer.JobID(fmt.Sprintf("replica-update-%d", p.c2))
	if p.proofs == nil {
		p.proofs = map[sealer.JobID][]byte{}
	}
	p.proofs[id] = fakeUpdateProof(req)
	return id, nil
}

// ProofTypes lists one seal and, with snap, one servable update proof type.
func (p *fakeProver) ProofTypes() []sealer.ProofTypeStatus {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := []sealer.ProofTypeStatus{{Name: "StackedDrg2KiBV1_1", Kind: "seal", Servable: true}}
	upd := sealer.ProofTypeStatus{Name: "StackedDrg2KiBV1", Kind: "update", Servable: p.snap}
	if !p.snap {
		upd.Reason = "missing empty-sector-update parameters"
	}
	return append(out, upd)
}

func (p *fakeProver) Await(ctx context.Context, id sealer.JobID) (*sealer.JobResult, error) {
	p.mu.Lock()
	gate := p.gate
	p.mu.Unlock()
	if gate != nil {
		select {
		case <-gate:
		case <-ctx.Done():
			return nil, &sealer.Error{Code: sealer.CodeCancelled, Err: ctx.Err()}
		}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return &sealer.JobResult{Proof: p.proofs[id]}, nil
}

func (p *fakeProver) post(req *sealer.PoStRequest) (*sealer.PoStResponse, error) {
	p.mu.Lock()
	p.postReq = append(p.postReq, req)
	p.mu.Unlock()
	b := make([]byte, 192)
	b[0] = byte(len(req.VanillaProofs))
	return &sealer.PoStResponse{Proofs: []proof.PoStProof{{PoStProof: req.ProofType, ProofBytes: b}}, Skipped: []abi.SectorID{}}, nil
}

func (p *fakeProver) GenerateWindowPoSt(_ context.Context, req *sealer.PoStRequest) (*sealer.PoStResponse, error) {
	return p.post(req)
}

func (p *fakeProver) GenerateWinningPoSt(_ context.Context, req *sealer.PoStRequest) (*sealer.PoStResponse, error) {
	return p.post(req)
}

// testWorker is a running adapter served over loopback HTTP.
type testWorker struct {
	*lotus.Worker
	srv *httptest.Server
}

func (w *testWorker) url(r lotus.Role) string { return w.srv.URL + r.Path() }

func testConfig() lotus.Config {
	cfg := lotus.DefaultConfig()
	cfg.Roles = lotus.AllRoles
	cfg.Hostname = "snarkpipe-test"
	cfg.HeartbeatInterval = 50 * time.Millisecond
	cfg.ReturnRetryInterval = 20 * time.Millisecond
	cfg.PoStReadTimeout = 5 * time.Second
	return cfg
}

// startWorker starts an adapter over stateDir. The returned stop abandons it like a crash
// (nothing more is reported); it also runs at cleanup.
func startWorker(t testing.TB, cfg lotus.Config, stateDir string, prover lotus.Prover, m *testMiner) (*testWorker, func()) {
	t.Helper()
	mc := m.client(t)
	w, err := lotus.New(cfg, lotus.Deps{
		Prover: prover, Miner: mc, MinerAuth: m.apiInfo().AuthHeader(),
		Verify: lotus.MinerVerifier(mc, time.Minute), StateDir: stateDir,
	})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(w.Handler())
	var once sync.Once
	stop := func() {
		once.Do(func() {
			srv.CloseClientConnections()
			srv.Close()
			w.Close()
		})
	}
	t.Cleanup(stop)
	return &testWorker{Worker: w, srv: srv}, stop
}

// registerAll runs the registration loop and waits until every role connected.
func registerAll(t testing.TB, w *testWorker, m *testMiner, roles []lotus.Role) context.CancelFunc {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { errc <- w.Register(ctx, w.srv.URL) }()
	t.Cleanup(func() { cancel(); <-errc })
	for _, r := range roles {
		m.waitConnect(t, w.url(r))
	}
	return cancel
}

func testCtx(t testing.TB, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// testCID is a sealed-sector CID (comm_r 0x01..0x20).
var testCID = func() cid.Cid {
	var commR [32]byte
	for i := range commR {
		commR[i] = byte(i + 1)
	}
	c, err := commcid.ReplicaCommitmentV1ToCID(commR[:])
	if err != nil {
		panic(err)
	}
	return c
}()

// postRaw posts a raw JSON-RPC body with the miner's token and returns the answer.
func postRaw(t testing.TB, url, body string) []byte {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+minerToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	return raw
}
