package rpc

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/filecoin-project/go-state-types/abi"

	"github.com/snarkpipe/snarkpipe/rpc/api"
	"github.com/snarkpipe/snarkpipe/sealer"
)

func TestPermissions(t *testing.T) {
	url := serve(t, DefaultConfig(), &fakeService{proof: []byte{1, 2, 3}})
	ctx := context.Background()
	c2 := api.SealCommit2Request{ProofType: abi.RegisteredSealProof_StackedDrg2KiBV1_1, C1: []byte("{}")}
	seal := abi.RegisteredSealProof_StackedDrg2KiBV1_1
	for _, tc := range []struct {
		perm                     string
		status, write, admin     api.Code // 0: allowed
		statusMsg, writeMsg, adm string
	}{
		{perm: "", status: api.CodeForbidden, write: api.CodeForbidden, admin: api.CodeForbidden},
		{perm: api.PermRead, write: api.CodeForbidden, admin: api.CodeForbidden},
		{perm: api.PermWrite, admin: api.CodeForbidden},
		{perm: api.PermAdmin},
	} {
		tok := ""
		if tc.perm != "" {
			tok = token(t, tc.perm)
		}
		c := dial(t, url, tok)
		check := func(what string, err error, code api.Code) {
			t.Helper()
			if code == 0 {
				if err != nil {
					t.Fatalf("perm %q: %s: %v", tc.perm, what, err)
				}
				return
			}
			e := wantCode(t, "perm "+tc.perm+": "+what, err, code)
			if code == api.CodeForbidden && !strings.Contains(e.Message, "missing permission to invoke") {
				t.Fatalf("forbidden message %q", e.Message)
			}
		}
		_, err := c.Status(ctx)
		check("Status", err, tc.status)
		r, err := c.SealCommit2(ctx, c2)
		check("SealCommit2", err, tc.write)
		if err == nil && !bytes.Equal(r.Proof, []byte{1, 2, 3}) {
			t.Fatalf("proof %x", r.Proof)
		}
		_, err = c.Preload(ctx, api.ProofTypeRef{Seal: &seal})
		check("Preload", err, tc.admin)
	}
}

func TestBadTokens(t *testing.T) {
	url := serve(t, DefaultConfig(), &fakeService{})
	other, err := NewToken([]byte("another secret, 32 bytes long!!!"), api.PermAdmin)
	if err != nil {
		t.Fatal(err)
	}
	for name, tok := range map[string]string{"other secret": other, "garbage": "not.a.jwt", "truncated": token(t, api.PermAdmin)[:40]} {
		_, err := dial(t, url, tok).Status(context.Background())
		e := wantCode(t, name, err, api.CodeUnauthorized)
		if !strings.Contains(e.Message, "invalid token") {
			t.Fatalf("%s: message %q", name, e.Message)
		}
	}
	// Not a Bearer header: raw request.
	req, _ := http.NewRequest("POST", url+api.Endpoint, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"SnarkPipe.Version","params":[]}`))
	req.Header.Set("Authorization", "Basic abc")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("Basic auth: status %d", resp.StatusCode)
	}
	// The token may also come as ?token=.
	req, _ = http.NewRequest("POST", url+api.Endpoint+"?token="+token(t, api.PermRead), strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"SnarkPipe.Version","params":[]}`))
	if code, body := do(t, req); code != 200 || !strings.Contains(body, api.Version) {
		t.Fatalf("?token=: %d %s", code, body)
	}
}

func TestServiceErrorCodes(t *testing.T) {
	f := &fakeService{}
	url := serve(t, DefaultConfig(), f)
	c := dial(t, url, token(t, api.PermAdmin))
	ctx := context.Background()
	for _, tc := range []struct {
		err  error
		code api.Code
	}{
		{&sealer.Error{Code: sealer.CodeInvalidInput, ProofType: "StackedDrg2KiBV1_1", Msg: "C1 output"}, api.CodeInvalidInput},
		{&sealer.Error{Code: sealer.CodeUnsupported, ProofType: "StackedDrg2KiBV1_2_Feat_NonInteractivePoRep", Msg: "NI"}, api.CodeUnsupported},
		{&sealer.Error{Code: sealer.CodeNotFound, Msg: "job"}, api.CodeNotFound},
		{&sealer.Error{Code: sealer.CodeUnavailable, Msg: "shutting down"}, api.CodeUnavailable},
		{&sealer.Error{Code: sealer.CodeCancelled}, api.CodeCancelled},
		{&sealer.Error{Code: sealer.CodeInternal}, api.CodeInternal},
		{errors.New("plain"), api.CodeInternal},
	} {
		f.mu.Lock()
		f.err = tc.err
		f.mu.Unlock()
		_, err := c.SealCommit2(ctx, api.SealCommit2Request{})
		e := wantCode(t, tc.err.Error(), err, tc.code)
		if e.Message != tc.err.Error() {
			t.Fatalf("message %q, want %q", e.Message, tc.err.Error())
		}
		var se *sealer.Error
		if errors.As(tc.err, &se) && e.Data.ProofType != se.ProofType {
			t.Fatalf("proof type %q, want %q", e.Data.ProofType, se.ProofType)
		}
		if e.Data.Temporary != tc.code.Temporary() {
			t.Fatalf("temporary %v for code %d", e.Data.Temporary, tc.code)
		}
		if !errors.Is(err, &api.Error{Code: tc.code}) {
			t.Fatalf("errors.Is does not match code %d", tc.code)
		}
		_, err = c.AwaitJob(ctx, "x")
		wantCode(t, "AwaitJob", err, tc.code)
	}
}

// do sends a raw request and returns status and body.
func do(t testing.TB, req *http.Request) (int, string) {
	t.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func rawCall(t testing.TB, url, tok, body string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest("POST", url+api.Endpoint, strings.NewReader(body))
	if tok != "" {
		req.Header.Set("Authorization", "Bearer "+tok)
	}
	return do(t, req)
}

// rpcCode extracts the JSON-RPC error code of a response body.
func rpcCode(t testing.TB, body string) api.Code {
	t.Helper()
	var r struct {
		Error *struct {
			Code    api.Code
			Message string
		}
	}
	if err := json.Unmarshal([]byte(body), &r); err != nil || r.Error == nil {
		t.Fatalf("not a JSON-RPC error: %q (%v)", body, err)
	}
	return r.Error.Code
}

func TestMalformedRequests(t *testing.T) {
	f := &fakeService{}
	url := serve(t, DefaultConfig(), f)
	tok := token(t, api.PermAdmin)
	for _, tc := range []struct {
		name, body string
		code       api.Code
	}{
		{"malformed JSON", `{"jsonrpc":"2.0","id":1,"method":`, api.CodeParse},
		{"not an object", `42`, api.CodeParse},
		{"empty", ``, api.CodeInvalidReq},
		{"unknown method", `{"jsonrpc":"2.0","id":1,"method":"SnarkPipe.Nope","params":[]}`, api.CodeNoMethod},
		{"wrong param count", `{"jsonrpc":"2.0","id":1,"method":"SnarkPipe.SealCommit2","params":[]}`, api.CodeInvalidParam},
		{"wrong param type", `{"jsonrpc":"2.0","id":1,"method":"SnarkPipe.SealCommit2","params":[{"C1":7}]}`, api.CodeParse},
		{"bad base64", `{"jsonrpc":"2.0","id":1,"method":"SnarkPipe.SealCommit2","params":[{"C1":"%%%"}]}`, api.CodeParse},
	} {
		_, body := rawCall(t, url, tok, tc.body)
		if got := rpcCode(t, body); got != tc.code {
			t.Errorf("%s: code %d, want %d (%s)", tc.name, got, tc.code, body)
		}
	}
	if f.calls != 0 {
		t.Fatalf("%d malformed requests reached the service", f.calls)
	}
	// The server keeps serving.
	if _, err := dial(t, url, tok).Status(context.Background()); err != nil {
		t.Fatal(err)
	}
}

func TestOversizedRequest(t *testing.T) {
	cfg := DefaultConfig()
	cfg.MaxRequestBytes = 64 << 10
	f := &fakeService{}
	url := serve(t, cfg, f)
	tok := token(t, api.PermWrite)
	c := dial(t, url, tok)
	_, err := c.SealCommit2(context.Background(), api.SealCommit2Request{C1: make([]byte, 100<<10)})
	e := wantCode(t, "100 KiB C1", err, api.CodeTooLarge)
	if !strings.Contains(e.Message, "exceeds the limit of 65536 bytes") {
		t.Fatalf("message %q", e.Message)
	}
	// A body without a declared length is cut by go-jsonrpc at the same limit.
	body := `{"jsonrpc":"2.0","id":1,"method":"SnarkPipe.SealCommit2","params":[{"C1":"` + strings.Repeat("A", 80<<10) + `"}]}`
	req, _ := http.NewRequest("POST", url+api.Endpoint, io.MultiReader(strings.NewReader(body)))
	req.ContentLength = -1
	req.Header.Set("Authorization", "Bearer "+tok)
	_, resp := do(t, req)
	if rpcCode(t, resp) != api.CodeParse || !strings.Contains(resp, "request bigger than maximum") {
		t.Fatalf("chunked oversized body: %s", resp)
	}
	if f.calls != 0 {
		t.Fatal("oversized request reached the service")
	}
	// Just under the limit still works, and the server keeps serving.
	if _, err := c.SealCommit2(context.Background(), api.SealCommit2Request{C1: make([]byte, 32<<10)}); err != nil {
		t.Fatal(err)
	}
}

func TestDefaultLimitFits64GiBC1(t *testing.T) {
	// A 64 GiB C1 output is about 55 MB of JSON; base64 in a request makes it 4/3 larger.
	const c1JSON = 56 << 20
	if need := int64(c1JSON)*4/3 + 1<<20; DefaultConfig().MaxRequestBytes < need {
		t.Fatalf("default limit %d below %d", DefaultConfig().MaxRequestBytes, need)
	}
}

func TestClientCancelReachesService(t *testing.T) {
	f := &fakeService{block: make(chan struct{}), started: make(chan struct{})}
	url := serve(t, DefaultConfig(), f)
	c := dial(t, url, token(t, api.PermWrite))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := c.SealCommit2(ctx, api.SealCommit2Request{C1: []byte("x")})
		done <- err
	}()
	<-f.started
	cancel()
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("cancelled call succeeded")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("cancel did not end the call")
	}
}

func TestStatusAndJobsRoundTrip(t *testing.T) {
	f := &fakeService{proof: []byte{9}}
	url := serve(t, DefaultConfig(), f)
	c := dial(t, url, token(t, api.PermAdmin))
	ctx := context.Background()
	st, err := c.Status(ctx)
	if err != nil || st.Backend != "fake" || st.Queues["window-post"].Running != 1 || st.Version != api.Version {
		t.Fatalf("status %+v %v", st, err)
	}
	id, err := c.SubmitSealCommit2(ctx, api.SealCommit2Request{})
	if err != nil || id != "seal-commit2-1" {
		t.Fatalf("submit %q %v", id, err)
	}
	res, err := c.AwaitJob(ctx, id)
	if err != nil || res.Info.ID != id || res.Info.State != "done" || !bytes.Equal(res.Proof, []byte{9}) {
		t.Fatalf("await %+v %v", res, err)
	}
	pr, err := c.GenerateWindowPoStWithVanilla(ctx, api.PoStRequest{ProofType: abi.RegisteredPoStProof_StackedDrgWindow2KiBV1_1})
	if err != nil || len(pr.Proofs) != 1 || pr.Proofs[0].PoStProof != abi.RegisteredPoStProof_StackedDrgWindow2KiBV1_1 {
		t.Fatalf("window %+v %v", pr, err)
	}
	if err := c.Cancel(ctx, id); err != nil {
		t.Fatal(err)
	}
	if ok, err := c.Evict(ctx, api.ProofTypeRef{}); err != nil || !ok {
		t.Fatalf("evict %v %v", ok, err)
	}
	if v, err := c.Version(ctx); err != nil || v != api.Version {
		t.Fatalf("version %q %v", v, err)
	}
}

func TestWebSocketClient(t *testing.T) {
	f := &fakeService{proof: []byte{7}}
	url := serve(t, DefaultConfig(), f)
	ws := "ws" + strings.TrimPrefix(url, "http")
	c := dial(t, ws, token(t, api.PermWrite))
	r, err := c.SealCommit2(context.Background(), api.SealCommit2Request{C1: []byte("x")})
	if err != nil || !bytes.Equal(r.Proof, []byte{7}) {
		t.Fatalf("over websocket: %+v %v", r, err)
	}
	_, err = c.Preload(context.Background(), api.ProofTypeRef{})
	wantCode(t, "Preload with a write token over websocket", err, api.CodeForbidden)
}

// TestPreloadEvictUpdateRef: a SnapDeals proof type named in Preload and Evict reaches the
// service as an update reference (before, the field did not exist and the ref arrived empty).
func TestPreloadEvictUpdateRef(t *testing.T) {
	f := &fakeService{}
	url := serve(t, DefaultConfig(), f)
	c := dial(t, url, token(t, api.PermAdmin))
	ctx := context.Background()
	up := abi.RegisteredUpdateProof_StackedDrg32GiBV1
	check := func(what string) {
		t.Helper()
		f.mu.Lock()
		got := f.lastRef
		f.mu.Unlock()
		if got.Update == nil || *got.Update != up || got.Seal != nil || got.PoSt != nil {
			t.Fatalf("%s: service got %+v, want Update %v only", what, got, up)
		}
	}
	if _, err := c.Preload(ctx, api.ProofTypeRef{Update: &up}); err != nil {
		t.Fatal(err)
	}
	check("Preload")
	f.lastRef = sealer.ProofTypeRef{}
	if _, err := c.Evict(ctx, api.ProofTypeRef{Update: &up}); err != nil {
		t.Fatal(err)
	}
	check("Evict")
}
