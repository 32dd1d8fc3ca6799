package kit

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/filecoin-project/go-jsonrpc"
	"github.com/filecoin-project/go-jsonrpc/auth"
	"github.com/filecoin-project/go-state-types/abi"
	lapi "github.com/filecoin-project/lotus/api"
	"github.com/filecoin-project/lotus/api/client"
	"github.com/filecoin-project/lotus/storage/sealer/sealtasks"
	"github.com/filecoin-project/lotus/storage/sealer/storiface"
	"github.com/google/uuid"
)

func minerClient(t *testing.T, m *LotusMiner, perms ...auth.Permission) lapi.StorageMiner {
	t.Helper()
	tok, err := m.newToken(perms)
	if err != nil {
		t.Fatal(err)
	}
	c, closer, err := client.NewStorageMinerRPCV0(context.Background(), m.URL(), http.Header{"Authorization": {"Bearer " + string(tok)}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(closer)
	return c
}

// TestLotusMinerPermissions: lotus's permission proxy guards the sim as it guards
// lotus-miner; lotus's own miner client talks to it.
func TestLotusMinerPermissions(t *testing.T) {
	m := StartLotusMiner(t, LotusMinerOptions{})
	ctx := context.Background()
	read := minerClient(t, m, "read")
	v, err := read.Version(ctx)
	if err != nil || v.APIVersion != lapi.MinerAPIVersion0 {
		t.Fatalf("Version %+v, %v", v, err)
	}
	err = read.ReturnSealCommit2(ctx, storiface.CallID{ID: uuid.New()}, nil, nil)
	if err == nil || !strings.Contains(err.Error(), "missing permission") {
		t.Fatalf("ReturnSealCommit2 with a read token: %v", err)
	}
	admin := minerClient(t, m, "read", "write", "sign", "admin")
	perms, err := admin.AuthVerify(ctx, strings.SplitN(m.APIInfo(), ":", 2)[0])
	if err != nil || len(perms) != 4 {
		t.Fatalf("AuthVerify of the api-info token: %v, %v", perms, err)
	}
	if _, err := admin.AuthVerify(ctx, "not-a-jwt"); err == nil {
		t.Fatal("AuthVerify accepted garbage")
	}
	if _, err := admin.ActorAddress(ctx); err == nil || !strings.Contains(err.Error(), "not supported") {
		t.Fatalf("a method the sim does not serve: %v", err)
	}
	if s, err := admin.Session(ctx); err != nil || s != m.Session() {
		t.Fatalf("Session %v, %v", s, err)
	}
	id := storiface.CallID{Sector: abi.SectorID{Miner: 1000, Number: 1}, ID: uuid.New()}
	if err := admin.ReturnSealCommit2(ctx, id, []byte{1}, nil); err != nil {
		t.Fatal(err)
	}
	if err := admin.ReturnSealCommit2(ctx, id, []byte{1}, nil); err == nil || m.DuplicateReturns() != 1 {
		t.Fatalf("second return of a call: %v (%d duplicates)", err, m.DuplicateReturns())
	}
	r, err := m.AwaitC2(ctx, id)
	if err != nil || !bytes.Equal(r.Proof, []byte{1}) || r.Err != nil {
		t.Fatalf("AwaitC2 %+v, %v", r, err)
	}
}

// fakeWorker answers the handshake with the given version and session.
type fakeWorker struct {
	version lapi.Version
	session uuid.UUID
	tasks   map[sealtasks.TaskType]struct{}
	info    storiface.WorkerInfo
}

func (f *fakeWorker) Version(context.Context) (lapi.Version, error)      { return f.version, nil }
func (f *fakeWorker) Session(context.Context) (uuid.UUID, error)         { return f.session, nil }
func (f *fakeWorker) Info(context.Context) (storiface.WorkerInfo, error) { return f.info, nil }
func (f *fakeWorker) SealCommit2(_ context.Context, s storiface.SectorRef, _ storiface.Commit1Out) (storiface.CallID, error) {
	return storiface.CallID{Sector: s.ID, ID: uuid.New()}, nil
}
func (f *fakeWorker) TaskTypes(context.Context) (map[sealtasks.TaskType]struct{}, error) {
	return f.tasks, nil
}

func serveFakeWorker(t *testing.T, f *fakeWorker) string {
	rpc := jsonrpc.NewServer()
	rpc.Register("Filecoin", f)
	srv := httptest.NewServer(rpc)
	t.Cleanup(srv.Close)
	return srv.URL + "/rpc/v0"
}

// TestLotusMinerHandshake: WorkerConnect refuses what lotus refuses (wrong worker API
// version, closed session) and files workers by task type; a sealing worker connecting
// again with its session is a duplicate whose first handle stays.
func TestLotusMinerHandshake(t *testing.T) {
	m := StartLotusMiner(t, LotusMinerOptions{Heartbeat: 50 * time.Millisecond})
	ctx := context.Background()
	admin := minerClient(t, m, "read", "write", "sign", "admin")
	c2 := map[sealtasks.TaskType]struct{}{sealtasks.TTCommit2: {}}
	old := serveFakeWorker(t, &fakeWorker{version: lapi.Version(0x010600), session: uuid.New(), tasks: c2})
	if err := admin.WorkerConnect(ctx, old); err == nil || !strings.Contains(err.Error(), "unsupported worker api version") {
		t.Fatalf("worker API 1.6.0: %v", err)
	}
	closed := serveFakeWorker(t, &fakeWorker{version: lapi.WorkerAPIVersion0, tasks: c2})
	if err := admin.WorkerConnect(ctx, closed); err == nil || !strings.Contains(err.Error(), "worker already closed") {
		t.Fatalf("nil session: %v", err)
	}
	sess := uuid.New()
	first := serveFakeWorker(t, &fakeWorker{version: lapi.WorkerAPIVersion0, session: sess, tasks: c2})
	second := serveFakeWorker(t, &fakeWorker{version: lapi.WorkerAPIVersion0, session: sess, tasks: c2})
	wdp := serveFakeWorker(t, &fakeWorker{version: lapi.WorkerAPIVersion0, session: uuid.New(), tasks: map[sealtasks.TaskType]struct{}{sealtasks.TTGenerateWindowPoSt: {}, sealtasks.TTCommit2: {}}})
	for _, u := range []string{first, second, wdp} {
		if err := admin.WorkerConnect(ctx, u); err != nil {
			t.Fatal(err)
		}
	}
	evs := m.Connects()
	if len(evs) != 3 || evs[0].Scheduler != "sealing" || evs[0].Duplicate || !evs[1].Duplicate || evs[1].URL != first || evs[2].Scheduler != "window" {
		t.Fatalf("connects %+v", evs)
	}
	if err := m.WaitWorkers(ctx, "sealing", "window"); err != nil {
		t.Fatal(err)
	}
	wctx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	if err := m.WaitWorkers(wctx, "winning"); err == nil {
		t.Fatal("a winning worker appeared")
	}
}

// TestLotusMinerStorage: /remote/vanilla/single wants an admin token and serves only the
// vanilla proofs of challenges a PoSt of this miner issued; a broken sector is an error.
func TestLotusMinerStorage(t *testing.T) {
	m := StartLotusMiner(t, LotusMinerOptions{})
	ppt := abi.RegisteredPoStProof_StackedDrgWinning2KiBV1
	rnd := make([]byte, 32)
	s := Sector2KiB(t, 31)
	ch, err := m.challenge(ppt, rnd, s, 0)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := s.Vanilla(ppt, rnd, 0)
	tok, _ := m.newToken([]auth.Permission{"admin"})
	readTok, _ := m.newToken([]auth.Permission{"read"})
	post := func(token string, c storiface.PostSectorChallenge) (int, []byte) {
		body, _ := json.Marshal(singleVanillaParams{Miner: FixtureMiner, Sector: c, ProofType: ppt})
		u := strings.TrimSuffix(m.URL(), "/rpc/v0") + "/remote/vanilla/single"
		req, _ := http.NewRequest(http.MethodPost, u, bytes.NewReader(body))
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, b
	}
	if code, _ := post("", ch); code != 401 {
		t.Fatalf("no token: HTTP %d", code)
	}
	if code, _ := post(string(readTok), ch); code != 401 {
		t.Fatalf("read token: HTTP %d", code)
	}
	if code, b := post(string(tok), ch); code != 200 || !bytes.Equal(b, want) {
		t.Fatalf("admin: HTTP %d, %d bytes (want %d)", code, len(b), len(want))
	}
	other := ch
	other.Challenge = append([]uint64{ch.Challenge[0] + 1}, ch.Challenge[1:]...)
	if code, _ := post(string(tok), other); code != 500 {
		t.Fatalf("challenges never issued: HTTP %d", code)
	}
	m.BreakSector(31)
	if code, _ := post(string(tok), ch); code != 500 {
		t.Fatalf("broken sector: HTTP %d", code)
	}
	admin := minerClient(t, m, "admin")
	found, err := admin.StorageFindSector(context.Background(), s.ID, storiface.FTSealed|storiface.FTCache, 0, false)
	if err != nil || len(found) != 1 || len(found[0].BaseURLs) != 1 {
		t.Fatalf("StorageFindSector %+v, %v", found, err)
	}
	none, err := admin.StorageFindSector(context.Background(), abi.SectorID{Miner: FixtureMiner, Number: 999}, storiface.FTSealed|storiface.FTCache, 0, false)
	if err != nil || len(none) != 0 {
		t.Fatalf("unknown sector: %+v, %v", none, err)
	}
}

// TestLotusMinerAdmission: C2s are admitted on a worker only as lotus's CanHandleRequest
// allows with the Info it reported, and hold their resources until their Return: with
// lotus's default table a 2 KiB C2 takes one CPU thread (a one-CPU worker runs one), with
// an override MaxConcurrent is the limit.
func TestLotusMinerAdmission(t *testing.T) {
	for name, info := range map[string]storiface.WorkerInfo{
		"default table, 1 CPU": {Hostname: "fake", Resources: storiface.WorkerResources{MemPhysical: 64 << 30, CPUs: 1}},
		"override, MaxConcurrent 1": {Hostname: "fake", Resources: storiface.WorkerResources{MemPhysical: 64 << 30, CPUs: 64,
			Resources: map[sealtasks.TaskType]map[abi.RegisteredSealProof]storiface.Resources{sealtasks.TTCommit2: {SealProof2KiB: {MaxConcurrent: 1}}}}},
	} {
		t.Run(name, func(t *testing.T) {
			m := StartLotusMiner(t, LotusMinerOptions{})
			admin := minerClient(t, m, "admin")
			ctx := context.Background()
			u := serveFakeWorker(t, &fakeWorker{version: lapi.WorkerAPIVersion0, session: uuid.New(), info: info,
				tasks: map[sealtasks.TaskType]struct{}{sealtasks.TTCommit2: {}}})
			if err := admin.WorkerConnect(ctx, u); err != nil {
				t.Fatal(err)
			}
			s := Sector2KiB(t, 1)
			id, err := m.SealCommit2(ctx, s)
			if err != nil {
				t.Fatal(err)
			}
			short, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
			defer cancel()
			if _, err := m.SealCommit2(short, s); !errors.Is(err, errNoWorker) {
				t.Fatalf("second C2 while the first holds the worker: %v", err)
			}
			if err := admin.ReturnSealCommit2(ctx, id, []byte{1}, nil); err != nil {
				t.Fatal(err)
			}
			short2, cancel2 := context.WithTimeout(ctx, 5*time.Second)
			defer cancel2()
			if _, err := m.SealCommit2(short2, s); err != nil {
				t.Fatalf("C2 after the first returned: %v", err)
			}
		})
	}
}
