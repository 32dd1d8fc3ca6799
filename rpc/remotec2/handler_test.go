package remotec2

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/filecoin-project/go-state-types/abi"

	"github.com/snarkpipe/snarkpipe/sealer"
)

// lotusParams mirrors lotus api.RemoteCommit2Params (abi.SectorID, RegisteredSealProof,
// storiface.Commit1Out []byte), marshalled with encoding/json as lotus does.
type lotusParams struct {
	Sector     abi.SectorID
	ProofType  abi.RegisteredSealProof
	Commit1Out []byte
}

type fakeProver struct {
	mu   sync.Mutex
	reqs []*sealer.SealCommit2Request
	err  error
}

func (f *fakeProver) SealCommit2(ctx context.Context, req *sealer.SealCommit2Request) (*sealer.SealCommit2Response, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reqs = append(f.reqs, req)
	if f.err != nil {
		return nil, f.err
	}
	return &sealer.SealCommit2Response{Proof: fakeProof(req.C1)}, nil
}

func fakeProof(c1 []byte) []byte {
	h := sha256.Sum256(c1)
	return bytes.Repeat(h[:], 6) // 192 bytes
}

// tokens: "w" grants write, "r" only read, anything else is invalid.
func verify(token string) ([]string, error) {
	switch token {
	case "w":
		return []string{"read", "write"}, nil
	case "r":
		return []string{"read"}, nil
	}
	return nil, errors.New("signature is invalid")
}

func newTestServer(t *testing.T, p Prover, cfg Config) *httptest.Server {
	h, err := New(cfg, p, verify)
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle(Path, h)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// post sends a body the way lotus does: POST, Content-Type application/json, no other
// header unless given.
func post(t *testing.T, url string, body []byte, header http.Header) (int, []byte, http.Header) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, b, resp.Header
}

func lotusBody(t *testing.T, c1 []byte) []byte {
	return lotusBodyFor(t, abi.SectorID{Miner: 1000, Number: 42}, abi.RegisteredSealProof_StackedDrg2KiBV1_1, c1)
}

func lotusBodyFor(t *testing.T, sector abi.SectorID, pt abi.RegisteredSealProof, c1 []byte) []byte {
	b, err := json.Marshal(&lotusParams{Sector: sector, ProofType: pt, Commit1Out: c1})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestRemoteCommit2(t *testing.T) {
	f := &fakeProver{}
	srv := newTestServer(t, f, DefaultConfig())
	c1 := []byte(`{"registered_proof":"StackedDrg2KiBV1_1"}`)

	status, body, hdr := post(t, srv.URL+Path+"?token=w", lotusBody(t, c1), nil)
	if status != http.StatusOK || !bytes.Equal(body, fakeProof(c1)) || hdr.Get("Content-Type") != "application/octet-stream" {
		t.Fatalf("status %d, %d bytes, %q", status, len(body), hdr.Get("Content-Type"))
	}
	got := f.reqs[0]
	if got.Sector != (abi.SectorID{Miner: 1000, Number: 42}) || got.ProofType != abi.RegisteredSealProof_StackedDrg2KiBV1_1 || !bytes.Equal(got.C1, c1) || !strings.HasPrefix(got.Key, "remotec2-1000-42#") {
		t.Fatalf("service got %+v", got)
	}

	status, _, _ = post(t, srv.URL+Path, lotusBody(t, c1), http.Header{"Authorization": {"Bearer w"}})
	if status != http.StatusOK {
		t.Fatalf("bearer header: %d", status)
	}
	// A retry of the same body has the same idempotency key; another C1 has another.
	status, _, _ = post(t, srv.URL+Path+"?token=w", lotusBody(t, []byte("{}")), nil)
	if status != http.StatusOK || f.reqs[1].Key != got.Key || f.reqs[2].Key == got.Key {
		t.Fatalf("keys %q %q %q", got.Key, f.reqs[1].Key, f.reqs[2].Key)
	}
}

func TestRemoteCommit2Refusals(t *testing.T) {
	f := &fakeProver{}
	cfg := DefaultConfig()
	cfg.MaxBodyBytes = 1 << 20
	srv := newTestServer(t, f, cfg)
	good := lotusBody(t, []byte("{}"))
	url := srv.URL + Path + "?token=w"
	for _, tc := range []struct {
		name   string
		url    string
		body   []byte
		header http.Header
		status int
		msgHas string
	}{
		{"no token", srv.URL + Path, good, nil, 401, "no token"},
		{"bad token", srv.URL + Path + "?token=x", good, nil, 401, "invalid token: signature is invalid"},
		{"not bearer", srv.URL + Path, good, http.Header{"Authorization": {"Basic abc"}}, 401, "Bearer"},
		{"read-only token", srv.URL + Path + "?token=r", good, nil, 403, "write"},
		{"not JSON", url, []byte("C1 bytes"), nil, 400, "not RemoteCommit2Params JSON"},
		{"empty body", url, nil, nil, 400, "not RemoteCommit2Params JSON"},
		{"wrong type", url, []byte(`{"Sector":{"Miner":"x","Number":1},"ProofType":8,"Commit1Out":"e30="}`), nil, 400, "not RemoteCommit2Params JSON"},
		{"no sector", url, []byte(`{"ProofType":8,"Commit1Out":"e30="}`), nil, 400, "Sector {Miner, Number} missing"},
		{"no sector number", url, []byte(`{"Sector":{"Miner":1},"ProofType":8,"Commit1Out":"e30="}`), nil, 400, "Sector {Miner, Number} missing"},
		{"no proof type", url, []byte(`{"Sector":{"Miner":1,"Number":2},"Commit1Out":"e30="}`), nil, 400, "ProofType missing"},
		{"no C1", url, []byte(`{"Sector":{"Miner":1,"Number":2},"ProofType":8}`), nil, 400, "Commit1Out missing"},
		{"C1 not base64", url, []byte(`{"Sector":{"Miner":1,"Number":2},"ProofType":8,"Commit1Out":"{not b64"}`), nil, 400, "not RemoteCommit2Params JSON"},
		{"trailing data", url, append(append([]byte(nil), good...), []byte(` {}`)...), nil, 400, "trailing data"},
		{"too large", url, bytes.Repeat([]byte(" "), 1<<20+1), nil, 413, "max_body_bytes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, body, hdr := post(t, tc.url, tc.body, tc.header)
			if status != tc.status || !strings.Contains(string(body), tc.msgHas) {
				t.Fatalf("got %d %q, want %d containing %q", status, body, tc.status, tc.msgHas)
			}
			if !strings.HasPrefix(hdr.Get("Content-Type"), "text/plain") {
				t.Fatalf("error content type %q", hdr.Get("Content-Type"))
			}
		})
	}
	if len(f.reqs) != 0 {
		t.Fatalf("%d refused requests reached the service", len(f.reqs))
	}

	// A body without a declared length is cut at the limit too.
	pr, pw := io.Pipe()
	go func() { _, _ = pw.Write(bytes.Repeat([]byte(" "), 1<<20+10)); pw.Close() }()
	req, _ := http.NewRequest(http.MethodPost, url, pr)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 413 || req.ContentLength != 0 {
		t.Fatalf("chunked oversized body: %d", resp.StatusCode)
	}

	resp, err = http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 405 || resp.Header.Get("Allow") != "POST" {
		t.Fatalf("GET: %d, Allow %q", resp.StatusCode, resp.Header.Get("Allow"))
	}
}

func TestRemoteCommit2ServiceErrors(t *testing.T) {
	for _, tc := range []struct {
		code   sealer.Code
		status int
	}{
		{sealer.CodeInvalidInput, 400},
		{sealer.CodeUnsupported, 422},
		{sealer.CodeUnavailable, 503},
		{sealer.CodeInternal, 500},
	} {
		f := &fakeProver{err: &sealer.Error{Code: tc.code, ProofType: "StackedDrg2KiBV1_1", Msg: "replica_id check failed"}}
		srv := newTestServer(t, f, DefaultConfig())
		status, body, hdr := post(t, srv.URL+Path+"?token=w", lotusBody(t, []byte("{}")), nil)
		if status != tc.status || !strings.Contains(string(body), "(StackedDrg2KiBV1_1): replica_id check failed") {
			t.Fatalf("%v: %d %q", tc.code, status, body)
		}
		if (status == 503) != (hdr.Get("Retry-After") != "") {
			t.Fatalf("%v: Retry-After %q", tc.code, hdr.Get("Retry-After"))
		}
	}
}

func TestNewRequiresVerify(t *testing.T) {
	if _, err := New(DefaultConfig(), &fakeProver{}, nil); err == nil {
		t.Fatal("handler without token verification accepted")
	}
	if _, err := New(Config{MaxBodyBytes: 10}, &fakeProver{}, verify); err == nil {
		t.Fatal("tiny body limit accepted")
	}
}
