package main

import (
	"bytes"
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/filecoin-project/go-jsonrpc"
	"github.com/filecoin-project/go-jsonrpc/auth"
	"github.com/filecoin-project/go-state-types/abi"
	"github.com/filecoin-project/lotus/storage/sealer/sealtasks"
	"github.com/filecoin-project/lotus/storage/sealer/storiface"
	"github.com/google/uuid"

	"github.com/snarkpipe/snarkpipe/rpc/lotus"
)

// workerTestMiner is the smallest lotus-miner a worker registers with: it records each
// WorkerConnect URL and ReturnSealCommit2.
type workerTestMiner struct {
	mu      sync.Mutex
	urls    []string
	returns chan workerReturn
}

type workerReturn struct {
	id   storiface.CallID
	cerr *storiface.CallError
}

func (m *workerTestMiner) Version(context.Context) (lotus.APIVersion, error) {
	return lotus.APIVersion{Version: "test", APIVersion: lotus.MinerAPIVersion}, nil
}
func (m *workerTestMiner) Session(context.Context) (uuid.UUID, error) {
	return uuid.MustParse("11111111-2222-3333-4444-555555555555"), nil
}
func (m *workerTestMiner) AuthVerify(_ context.Context, token string) ([]auth.Permission, error) {
	if token != "miner-token" {
		return nil, errors.New("bad token")
	}
	return []auth.Permission{"read", "write", "sign", "admin"}, nil
}
func (m *workerTestMiner) WorkerConnect(_ context.Context, url string) error {
	m.mu.Lock()
	m.urls = append(m.urls, url)
	m.mu.Unlock()
	return nil
}
func (m *workerTestMiner) ReturnSealCommit2(_ context.Context, id storiface.CallID, _ storiface.Proof, cerr *storiface.CallError) error {
	m.returns <- workerReturn{id, cerr}
	return nil
}

// serve starts the miner's JSON-RPC endpoint.
func (m *workerTestMiner) serve(t *testing.T) *httptest.Server {
	rpcSrv := jsonrpc.NewServer()
	rpcSrv.Register("Filecoin", m)
	ms := httptest.NewServer(rpcSrv)
	t.Cleanup(ms.Close)
	return ms
}

// waitURLs waits until n WorkerConnect calls arrived and returns their URLs.
func (m *workerTestMiner) waitURLs(t *testing.T, n int, d time.Duration) []string {
	t.Helper()
	for deadline := time.Now().Add(d); ; time.Sleep(10 * time.Millisecond) {
		m.mu.Lock()
		urls := append([]string(nil), m.urls...)
		m.mu.Unlock()
		if len(urls) >= n {
			return urls
		}
		if time.Now().After(deadline) {
			t.Fatalf("registrations: %v, want %d", urls, n)
		}
	}
}

// TestWorkerRun starts `worker run` against a test miner: both roles register with their
// own URL, the miner can call them with its token, and a C2 the real service rejects comes
// back through ReturnSealCommit2; cancelling stops the worker cleanly.
func TestWorkerRun(t *testing.T) {
	m := &workerTestMiner{returns: make(chan workerReturn, 1)}
	ms := m.serve(t)

	cfg := testDaemonConfig(t)
	wcfg := lotus.DefaultConfig()
	wcfg.Roles = []lotus.Role{lotus.RoleC2, lotus.RoleWinning}
	opts := workerOptions{lotus: wcfg, miner: lotus.APIInfo{Token: "worker-token", URL: ms.URL + "/rpc/v0"}, listen: "127.0.0.1:0", stateDir: t.TempDir()}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out bytes.Buffer
	done := make(chan error, 1)
	go func() { done <- runWorker(ctx, &out, cfg, opts) }()

	urls := m.waitURLs(t, 2, time.Minute)
	h := http.Header{"Authorization": []string{"Bearer miner-token"}}
	for _, u := range urls {
		var c struct {
			Version     func(context.Context) (lotus.Version, error)
			TaskTypes   func(context.Context) (map[sealtasks.TaskType]struct{}, error)
			SealCommit2 func(context.Context, storiface.SectorRef, storiface.Commit1Out) (storiface.CallID, error)
		}
		closer, err := jsonrpc.NewMergeClient(ctx, u, "Filecoin", []any{&c}, h)
		if err != nil {
			t.Fatal(err)
		}
		defer closer()
		if v, err := c.Version(ctx); err != nil || v != lotus.WorkerAPIVersion {
			t.Fatalf("%s: Version %v, %v", u, v, err)
		}
		tts, err := c.TaskTypes(ctx)
		if err != nil {
			t.Fatalf("%s: TaskTypes: %v", u, err)
		}
		if !strings.HasSuffix(u, "/c2/rpc/v0") {
			if len(tts) != 1 {
				t.Fatalf("%s: TaskTypes %v, want one", u, tts)
			}
			continue
		}
		// The c2 role takes C2 and, while update parameters are servable (the dev ones
		// here are), ProveReplicaUpdate2: lotus schedules both to the same worker.
		_, c2 := tts[sealtasks.TTCommit2]
		_, pr2 := tts[sealtasks.TTProveReplicaUpdate2]
		if !c2 || !pr2 || len(tts) != 2 {
			t.Fatalf("%s: TaskTypes %v, want C2 and ProveReplicaUpdate2", u, tts)
		}
		if _, err := c.SealCommit2(ctx, storiface.SectorRef{ID: abi.SectorID{Miner: 1000, Number: 1}, ProofType: abi.RegisteredSealProof_StackedDrg2KiBV1_1}, []byte("{}")); err != nil {
			t.Fatal(err)
		}
		select {
		case r := <-m.returns:
			if cerr := r.cerr; cerr == nil || cerr.Code != storiface.ErrUnknown || !strings.Contains(cerr.Message, "invalid input") {
				t.Fatalf("ReturnSealCommit2 error %+v", r.cerr)
			}
		case <-time.After(time.Minute):
			t.Fatal("no ReturnSealCommit2")
		}
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(time.Minute):
		t.Fatal("worker did not stop")
	}
	if !strings.Contains(out.String(), "role c2") || !strings.Contains(out.String(), "role winpost") {
		t.Fatalf("output:\n%s", out.String())
	}
}

func TestAdvertiseURL(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	port := ln.Addr().(*net.TCPAddr).Port
	unspecified := &net.TCPAddr{IP: net.IPv4zero, Port: 3456}
	got, err := advertiseURL("", unspecified, "http://"+ln.Addr().String()+"/rpc/v0")
	if err != nil || got != "http://127.0.0.1:3456" {
		t.Fatalf("unspecified listener: %q, %v (miner on port %d)", got, err, port)
	}
	if got, err := advertiseURL("", &net.TCPAddr{IP: net.ParseIP("10.1.2.3"), Port: 7}, ""); err != nil || got != "http://10.1.2.3:7" {
		t.Fatalf("explicit listener: %q, %v", got, err)
	}
	if got, err := advertiseURL("http://worker.lan:9000/", unspecified, ""); err != nil || got != "http://worker.lan:9000" {
		t.Fatalf("flag: %q, %v", got, err)
	}
	if _, err := advertiseURL("worker.lan:9000", unspecified, ""); err == nil {
		t.Fatal("advertise without scheme accepted")
	}
}
