package rpc

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	logging "github.com/ipfs/go-log/v2"

	"github.com/snarkpipe/snarkpipe/rpc/api"
)

func init() {
	// go-jsonrpc logs every refused request at ERROR; the tests refuse many on purpose.
	_ = logging.SetLogLevel("rpc", "fatal")
}

// FuzzEndpoint feeds arbitrary bodies to the JSON-RPC endpoint with an admin token: the
// server must answer every one with JSON (a response, a batch, or a JSON-RPC error) and
// never panic. Run longer with: go test ./rpc -run '^$' -fuzz FuzzEndpoint -fuzztime 1m
func FuzzEndpoint(f *testing.F) {
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"SnarkPipe.Status","params":[]}`,
		`{"jsonrpc":"2.0","id":"a","method":"SnarkPipe.SealCommit2","params":[{"Sector":{"Miner":1,"Number":2},"ProofType":5,"C1":"e30="}]}`,
		`{"jsonrpc":"2.0","id":2,"method":"SnarkPipe.GenerateWindowPoStWithVanilla","params":[{"ProofType":10,"Randomness":"AAAA","VanillaProofs":["AA=="],"Partition":-1}]}`,
		`[{"jsonrpc":"2.0","id":1,"method":"SnarkPipe.Version","params":[]},{"jsonrpc":"2.0","id":2,"method":"SnarkPipe.Job","params":["x"]}]`,
		`{"jsonrpc":"2.0","id":3,"method":"SnarkPipe.Preload","params":[{"Seal":99}]}`,
		`{"id":{},"method":"SnarkPipe.Cancel","params":[null]}`,
		`[]`, `{`, `null`, ``,
	} {
		f.Add([]byte(seed))
	}
	h, err := NewHandler(DefaultConfig(), &fakeService{proof: []byte{1}}, testSecret)
	if err != nil {
		f.Fatal(err)
	}
	tok := token(f, api.PermAdmin)
	f.Fuzz(func(t *testing.T, body []byte) {
		req := httptest.NewRequest("POST", api.Endpoint, strings.NewReader(string(body)))
		req.Header.Set("Authorization", "Bearer "+tok)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK && rec.Code != http.StatusInternalServerError && rec.Code != http.StatusBadRequest {
			t.Fatalf("status %d for %q", rec.Code, body)
		}
		out := strings.TrimSpace(rec.Body.String())
		if out == "" {
			return // notifications (no id) get no response
		}
		if !json.Valid([]byte(out)) {
			t.Fatalf("response %q is not JSON (request %q)", out, body)
		}
	})
}
