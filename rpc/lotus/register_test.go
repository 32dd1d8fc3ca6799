package lotus_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/snarkpipe/snarkpipe/rpc/lotus"
)

// TestReRegisterOnMinerSessionChange: every role registers once, and again after the
// miner's Session changes (a restarted miner has forgotten its workers), and not otherwise.
func TestReRegisterOnMinerSessionChange(t *testing.T) {
	m := newTestMiner(t)
	w, _ := startWorker(t, testConfig(), t.TempDir(), &fakeProver{}, m)
	registerAll(t, w, m, lotus.AllRoles)
	time.Sleep(300 * time.Millisecond) // six heartbeats with an unchanged session
	for _, r := range lotus.AllRoles {
		if n := m.connectCount(w.url(r)); n != 1 {
			t.Fatalf("%s registered %d times with a steady miner session", r, n)
		}
	}
	m.setSession(uuid.New())
	for _, r := range lotus.AllRoles {
		m.waitConnects(t, w.url(r), 2)
	}
}

// TestEachRoleIsItsOwnWorker: separate sessions and task types per role, so that the miner
// puts the PoSt roles in the PoSt schedulers and C2 in the sealing scheduler.
func TestEachRoleIsItsOwnWorker(t *testing.T) {
	m := newTestMiner(t)
	w, _ := startWorker(t, testConfig(), t.TempDir(), &fakeProver{}, m)
	ctx := testCtx(t, 30*time.Second)
	sessions := map[uuid.UUID]bool{}
	for _, r := range lotus.AllRoles {
		wc := dialWorker(t, w.url(r), minerToken)
		s, err := wc.Session(ctx)
		if err != nil {
			t.Fatal(err)
		}
		sessions[s] = true
		tts, err := wc.TaskTypes(ctx)
		if _, ok := tts[r.TaskType()]; err != nil || !ok || len(tts) != 1 {
			t.Fatalf("%s: TaskTypes %v, %v", r, tts, err)
		}
		if s.String() != w.Sessions()[r] {
			t.Fatalf("%s: Session %s, Sessions() %s", r, s, w.Sessions()[r])
		}
	}
	if len(sessions) != len(lotus.AllRoles) {
		t.Fatalf("roles share sessions: %v", sessions)
	}
}

// TestRefusesOldMiner: a miner whose API is not 1.5.x is refused before registering;
// any 1.5.x is accepted.
func TestRefusesOldMiner(t *testing.T) {
	if uint32(lotus.WorkerAPIVersion) != 67328 || uint32(lotus.MinerAPIVersion) != 66816 {
		t.Fatalf("versions %d %d, want 67328 (1.7.0) and 66816 (1.5.0)", lotus.WorkerAPIVersion, lotus.MinerAPIVersion)
	}
	m := newTestMiner(t)
	m.apiVersion = lotus.Version(1<<16 | 4<<8)
	w, _ := startWorker(t, testConfig(), t.TempDir(), &fakeProver{}, m)
	err := w.Register(testCtx(t, 5*time.Second), w.srv.URL)
	if err == nil || !strings.Contains(err.Error(), "miner API version 1.4.0") {
		t.Fatalf("Register with a 1.4 miner: %v", err)
	}
	if n := m.connectCount(w.url(lotus.RoleC2)); n != 0 {
		t.Fatalf("registered with a 1.4 miner")
	}
	m.mu.Lock()
	m.apiVersion = lotus.Version(1<<16 | 5<<8 | 3)
	m.mu.Unlock()
	registerAll(t, w, m, lotus.AllRoles)
}

// TestWorkerMethods covers the lotus-worker CLI methods over the wire.
func TestWorkerMethods(t *testing.T) {
	m := newTestMiner(t)
	w, _ := startWorker(t, testConfig(), t.TempDir(), &fakeProver{}, m)
	ctx := testCtx(t, 30*time.Second)
	wc := dialWorker(t, w.url(lotus.RoleWinning), minerToken)
	if v, err := wc.Version(ctx); err != nil || v != lotus.WorkerAPIVersion {
		t.Fatalf("Version %v, %v", v, err)
	}
	if p, err := wc.Paths(ctx); err != nil || p == nil || len(p) != 0 {
		t.Fatalf("Paths %v, %v", p, err)
	}
	if l, err := wc.StorageLocal(ctx); err != nil || len(l) != 0 {
		t.Fatalf("StorageLocal %v, %v", l, err)
	}
	info, err := wc.Info(ctx)
	if err != nil || info.Hostname != "snarkpipe-test" || info.Resources.CPUs == 0 || info.IgnoreResources {
		t.Fatalf("Info %+v, %v", info, err)
	}
	if err := wc.WaitQuiet(ctx); err != nil {
		t.Fatal(err)
	}
	s, _ := wc.Session(ctx)
	if err := wc.SetEnabled(ctx, false); err != nil {
		t.Fatal(err)
	}
	if _, err := wc.Session(ctx); err == nil || !strings.Contains(err.Error(), "disabled") {
		t.Fatalf("disabled worker's Session: %v", err)
	}
	if ps, err := wc.ProcessSession(ctx); err != nil || ps != s {
		t.Fatalf("ProcessSession %v, %v", ps, err)
	}
	if en, _ := wc.Enabled(ctx); en {
		t.Fatal("Enabled after SetEnabled(false)")
	}
	wc.SetEnabled(ctx, true)
	if got, err := wc.Session(ctx); err != nil || got != s {
		t.Fatalf("re-enabled Session %v, %v", got, err)
	}
	if err := wc.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	if got, err := wc.Session(ctx); err != nil || got != uuid.Nil {
		t.Fatalf("Session after Shutdown %v, %v (want the zero UUID)", got, err)
	}
}

// TestAuth: every worker method needs a token granting admin, checked with the miner's
// AuthVerify.
func TestAuth(t *testing.T) {
	m := newTestMiner(t)
	w, _ := startWorker(t, testConfig(), t.TempDir(), &fakeProver{}, m)
	for _, tc := range []struct {
		token string
		code  int
	}{{"", http.StatusUnauthorized}, {"forged", http.StatusUnauthorized}, {readToken, http.StatusForbidden}, {minerToken, http.StatusOK}} {
		req, _ := http.NewRequest(http.MethodPost, w.url(lotus.RoleC2), strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"Filecoin.Version","params":[]}`))
		if tc.token != "" {
			req.Header.Set("Authorization", "Bearer "+tc.token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tc.code {
			t.Fatalf("token %q: HTTP %d, want %d", tc.token, resp.StatusCode, tc.code)
		}
	}
	ctx := testCtx(t, 10*time.Second)
	if _, err := dialWorker(t, w.url(lotus.RoleC2), readToken).Version(ctx); err == nil {
		t.Fatal("read token called Version")
	}
}

// TestWaitsForStartingMiner: a miner that does not answer yet is retried, not given up on.
func TestWaitsForStartingMiner(t *testing.T) {
	m := newTestMiner(t)
	m.downFor = 3
	w, _ := startWorker(t, testConfig(), t.TempDir(), &fakeProver{}, m)
	registerAll(t, w, m, lotus.AllRoles)
	if m.downFor != 0 {
		t.Fatalf("%d failures left", m.downFor)
	}
}
