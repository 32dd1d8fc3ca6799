package lotus_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/filecoin-project/go-state-types/abi"
	"github.com/filecoin-project/lotus/storage/sealer/sealtasks"
	"github.com/filecoin-project/lotus/storage/sealer/storiface"
	"github.com/google/uuid"

	"github.com/snarkpipe/snarkpipe/rpc/lotus"
)

// TestSealCommit2CallIDThenReturn drives SealCommit2 the way lotus-miner does: the worker
// registers (WorkerConnect), the miner calls SealCommit2 and gets a CallID at once, then the
// proof arrives through ReturnSealCommit2 for that CallID, once; the call's record is gone.
func TestSealCommit2CallIDThenReturn(t *testing.T) {
	m := newTestMiner(t)
	dir := t.TempDir()
	w, _ := startWorker(t, testConfig(), dir, &fakeProver{}, m)
	registerAll(t, w, m, lotus.AllRoles)
	ctx := testCtx(t, 30*time.Second)

	wc := m.worker(w.url(lotus.RoleC2))
	tts, err := wc.TaskTypes(ctx)
	if err != nil || len(tts) != 1 {
		t.Fatalf("TaskTypes %v, %v", tts, err)
	}
	if _, ok := tts[sealtasks.TTCommit2]; !ok {
		t.Fatalf("c2 role advertises %v", tts)
	}
	sector := storiface.SectorRef{ID: abi.SectorID{Miner: 1000, Number: 9}, ProofType: abi.RegisteredSealProof_StackedDrg32GiBV1_1}
	c1 := []byte(`{"registered_proof":"StackedDrg32GiBV1_1"}`)
	ci, err := wc.SealCommit2(ctx, sector, c1)
	if err != nil {
		t.Fatal(err)
	}
	if ci.Sector != sector.ID || ci.ID == uuid.Nil {
		t.Fatalf("CallID %+v", ci)
	}
	r := m.waitReturn(t, 10*time.Second)
	if r.ID != ci || r.Err != nil || !bytes.Equal(r.Proof, fakeC2Proof(c1, 9)) {
		t.Fatalf("returned %+v, want proof for %v", r, ci)
	}
	waitNoRecords(t, filepath.Join(dir, "c2", "calls"))
	m.expectNoReturn(t, 200*time.Millisecond)
	if m.dups != 0 {
		t.Fatalf("%d duplicate returns", m.dups)
	}
}

// TestSealCommit2WireShapes posts the JSON of spec/integration.md §2.2 byte for byte and
// checks the shapes of the CallID answer and of the ReturnSealCommit2 request the miner gets.
func TestSealCommit2WireShapes(t *testing.T) {
	m := newTestMiner(t)
	w, _ := startWorker(t, testConfig(), t.TempDir(), &fakeProver{}, m)
	c1 := []byte("C1 JSON stand-in")
	body := `{"jsonrpc":"2.0","id":1,"method":"Filecoin.SealCommit2","params":[{"ID":{"Miner":1000,"Number":9},"ProofType":8},"` + base64.StdEncoding.EncodeToString(c1) + `"]}`
	req, _ := http.NewRequest(http.MethodPost, w.url(lotus.RoleC2), strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+minerToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	var answer struct {
		ID     int
		Result map[string]json.RawMessage
		Error  any
	}
	if err := json.Unmarshal(raw, &answer); err != nil || answer.Error != nil || answer.ID != 1 {
		t.Fatalf("answer %s: %v", raw, err)
	}
	if string(answer.Result["Sector"]) != `{"Miner":1000,"Number":9}` || len(answer.Result) != 2 {
		t.Fatalf("CallID JSON %s", raw)
	}
	var id string
	if err := json.Unmarshal(answer.Result["ID"], &id); err != nil || uuid.MustParse(id) == uuid.Nil {
		t.Fatalf("CallID.ID %s", answer.Result["ID"])
	}
	m.waitReturn(t, 10*time.Second)

	m.mu.Lock()
	ret := m.rawBody[len(m.rawBody)-1]
	m.mu.Unlock()
	var call struct {
		Method string
		Params []json.RawMessage
	}
	if err := json.Unmarshal(ret, &call); err != nil || call.Method != "Filecoin.ReturnSealCommit2" || len(call.Params) != 3 {
		t.Fatalf("ReturnSealCommit2 request %s: %v", ret, err)
	}
	wantCallID := `{"Sector":{"Miner":1000,"Number":9},"ID":"` + id + `"}`
	wantProof := `"` + base64.StdEncoding.EncodeToString(fakeC2Proof(c1, 9)) + `"`
	if string(call.Params[0]) != wantCallID || string(call.Params[1]) != wantProof || string(call.Params[2]) != "null" {
		t.Fatalf("ReturnSealCommit2 params %s, want [%s,%s,null]", ret, wantCallID, wantProof)
	}
}

// TestSealCommit2ReturnRetried: a miner refusing results (busy, restarting) gets the same
// result again until it accepts it, and exactly once after that.
func TestSealCommit2ReturnRetried(t *testing.T) {
	m := newTestMiner(t)
	m.failNext = 3
	w, _ := startWorker(t, testConfig(), t.TempDir(), &fakeProver{}, m)
	ctx := testCtx(t, 30*time.Second)
	wc := dialWorker(t, w.url(lotus.RoleC2), minerToken)
	ci, err := wc.SealCommit2(ctx, storiface.SectorRef{ID: abi.SectorID{Miner: 1000, Number: 3}, ProofType: 8}, []byte("c1"))
	if err != nil {
		t.Fatal(err)
	}
	if r := m.waitReturn(t, 10*time.Second); r.ID != ci || r.Err != nil {
		t.Fatalf("returned %+v", r)
	}
	m.expectNoReturn(t, 200*time.Millisecond)
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.failNext != 0 || m.dups != 0 {
		t.Fatalf("refusals left %d, duplicates %d", m.failNext, m.dups)
	}
}

// TestSealCommit2ErrorsAreReturned: a C1 output the service rejects is reported through
// ReturnSealCommit2 with a CallError (code 0, the service's message), not dropped.
func TestSealCommit2ErrorsAreReturned(t *testing.T) {
	m := newTestMiner(t)
	w, _ := startWorker(t, testConfig(), t.TempDir(), &fakeProver{}, m)
	ctx := testCtx(t, 30*time.Second)
	wc := dialWorker(t, w.url(lotus.RoleC2), minerToken)
	ci, err := wc.SealCommit2(ctx, storiface.SectorRef{ID: abi.SectorID{Miner: 1000, Number: 4}, ProofType: 8}, []byte("invalid"))
	if err != nil {
		t.Fatal(err)
	}
	r := m.waitReturn(t, 10*time.Second)
	if r.ID != ci || r.Err == nil || r.Err.Code != storiface.ErrUnknown || !strings.Contains(r.Err.Message, "not JSON") || r.Proof != nil {
		t.Fatalf("returned %+v", r)
	}
}

// TestSealCommit2NotOnOtherRoles: only the c2 role takes C2, and not once disabled.
func TestSealCommit2NotOnOtherRoles(t *testing.T) {
	m := newTestMiner(t)
	p := &fakeProver{}
	w, _ := startWorker(t, testConfig(), t.TempDir(), p, m)
	ctx := testCtx(t, 30*time.Second)
	sector := storiface.SectorRef{ID: abi.SectorID{Miner: 1000, Number: 5}, ProofType: 8}
	if _, err := dialWorker(t, w.url(lotus.RoleWindow), minerToken).SealCommit2(ctx, sector, []byte("c1")); err == nil {
		t.Fatal("wdpost role accepted SealCommit2")
	}
	wc := dialWorker(t, w.url(lotus.RoleC2), minerToken)
	if err := wc.TaskDisable(ctx, sealtasks.TTCommit2); err != nil {
		t.Fatal(err)
	}
	if _, err := wc.SealCommit2(ctx, sector, []byte("c1")); err == nil || !strings.Contains(err.Error(), "not enabled") {
		t.Fatalf("disabled task accepted: %v", err)
	}
	if err := wc.TaskEnable(ctx, sealtasks.TTCommit1); err == nil {
		t.Fatal("enabled a task type the role does not serve")
	}
	if err := wc.TaskEnable(ctx, sealtasks.TTCommit2); err != nil {
		t.Fatal(err)
	}
	if _, err := wc.SealCommit2(ctx, sector, []byte("c1")); err != nil {
		t.Fatal(err)
	}
	m.waitReturn(t, 10*time.Second)
	if _, err := wc.SealCommit2(ctx, sector, []byte("c1")); err != nil {
		t.Fatal(err)
	}
	m.waitReturn(t, 10*time.Second)
	if p.c2 != 2 || p.keys[0] != p.keys[1] || !strings.HasPrefix(p.keys[0], "lotus-c2-1000-5-8-") {
		t.Fatalf("prover saw %d C2 submissions with keys %q; want 2 with the same content key", p.c2, p.keys)
	}
}

// waitNoRecords waits until the call directory is empty (the report is forgotten right
// after the miner accepted it).
func waitNoRecords(t testing.TB, dir string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		if len(entries) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("call records left in %s: %v", dir, entries)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
