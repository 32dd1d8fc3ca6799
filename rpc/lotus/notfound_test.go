package lotus_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/snarkpipe/snarkpipe/rpc/lotus"
)

// TestWorkerUnknownPathNamesRoles: /rpc/v0 (where a lotus worker answers) is not a role
// endpoint here; a plain request gets a 404 with a JSON-RPC error body, a JSON-RPC client
// gets an error that names the role endpoints.
func TestWorkerUnknownPathNamesRoles(t *testing.T) {
	m := newTestMiner(t)
	w, _ := startWorker(t, testConfig(), t.TempDir(), &fakeProver{}, m)

	resp, err := http.Get(w.srv.URL + "/rpc/v0")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body struct {
		Error struct {
			Code    int
			Message string
		}
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		t.Fatalf("404 body is not JSON: %v", err)
	}
	if resp.StatusCode != http.StatusNotFound || !strings.Contains(body.Error.Message, lotus.RoleC2.Path()) {
		t.Fatalf("GET /rpc/v0: status %d, error %+v", resp.StatusCode, body.Error)
	}

	wc := dialWorker(t, w.srv.URL+"/rpc/v0", minerToken)
	_, err = wc.Session(testCtx(t, 10*time.Second))
	if err == nil {
		t.Fatal("Session on /rpc/v0 succeeded")
	}
	for _, r := range lotus.AllRoles {
		if !strings.Contains(err.Error(), r.Path()) {
			t.Errorf("JSON-RPC error does not name %s: %v", r.Path(), err)
		}
	}
}

// TestWorkerForeignTokenSaysMinerTokens: a token the miner does not accept (one from
// snarkpipe auth, say) is refused with a hint that the worker takes the miner's tokens.
func TestWorkerForeignTokenSaysMinerTokens(t *testing.T) {
	m := newTestMiner(t)
	w, _ := startWorker(t, testConfig(), t.TempDir(), &fakeProver{}, m)
	req, err := http.NewRequest(http.MethodPost, w.url(lotus.RoleC2), strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"Filecoin.Session","params":[]}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer a-snarkpipe-token")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusUnauthorized || !strings.Contains(string(b), "MINER_API_INFO") {
		t.Fatalf("want 401 with a hint about the miner's tokens, got %d %s", resp.StatusCode, b)
	}
}
