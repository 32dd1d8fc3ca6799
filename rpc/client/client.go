// Package client is the Go client of snarkpipe's native JSON-RPC API, for tools (the
// snarkpipe CLI), Curio-style callers and integration tests.
package client

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/filecoin-project/go-jsonrpc"

	"github.com/snarkpipe/snarkpipe/rpc/api"
)

// Closer releases the client's connection.
type Closer = jsonrpc.ClientCloser

// New connects to a snarkpipe daemon. addr is the daemon's base URL or its endpoint
// ("http://127.0.0.1:9820", "ws://host:9820/rpc/v0"); http(s) makes one POST per call,
// ws(s) keeps a WebSocket open. token may be empty. Service errors come back as
// *api.Error, including refused tokens (CodeUnauthorized) and oversized requests
// (CodeTooLarge).
func New(ctx context.Context, addr, token string) (api.SnarkPipe, Closer, error) {
	endpoint, err := Endpoint(addr)
	if err != nil {
		return nil, nil, err
	}
	var header http.Header
	if token != "" {
		header = http.Header{"Authorization": []string{"Bearer " + token}}
	}
	var out api.SnarkPipeStruct
	closer, err := jsonrpc.NewMergeClient(ctx, endpoint, api.Namespace, []any{&out.Internal}, header,
		jsonrpc.WithErrors(api.Errors()),
		jsonrpc.WithHTTPClient(&http.Client{Transport: typedErrors{http.DefaultTransport}}))
	if err != nil {
		return nil, nil, err
	}
	return &out, closer, nil
}

// Endpoint completes a base URL with api.Endpoint when it has no path.
func Endpoint(addr string) (string, error) {
	u, err := url.Parse(addr)
	if err != nil {
		return "", fmt.Errorf("client: daemon address %q: %w", addr, err)
	}
	switch u.Scheme {
	case "http", "https", "ws", "wss":
	default:
		return "", fmt.Errorf("client: daemon address %q: scheme must be http, https, ws or wss", addr)
	}
	if u.Path == "" || u.Path == "/" {
		u.Path = api.Endpoint
	}
	return u.String(), nil
}

// typedErrors lets go-jsonrpc decode the JSON-RPC error bodies the server sends with HTTP
// 401 and 413: go-jsonrpc only decodes bodies of 200 and 500 responses (and reports other
// statuses as a bare "http status" error), and it wants the request's id back, which a
// server that refused the request unread could not know.
type typedErrors struct{ next http.RoundTripper }

func (t typedErrors) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(r)
	if err != nil {
		return nil, err
	}
	if (resp.StatusCode != http.StatusUnauthorized && resp.StatusCode != http.StatusRequestEntityTooLarge) ||
		!strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") || r.GetBody == nil {
		return resp, nil
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	var msg map[string]json.RawMessage
	if json.Unmarshal(body, &msg) != nil {
		resp.Body = io.NopCloser(bytes.NewReader(body))
		return resp, nil
	}
	if id, ok := requestID(r); ok {
		msg["id"] = id
		body, _ = json.Marshal(msg)
	}
	resp.StatusCode = http.StatusInternalServerError
	resp.Body = io.NopCloser(bytes.NewReader(body))
	resp.ContentLength = int64(len(body))
	return resp, nil
}

// requestID reads the top-level "id" of a JSON-RPC request body without decoding the
// (possibly large) params: go-jsonrpc writes id before params.
func requestID(r *http.Request) (json.RawMessage, bool) {
	body, err := r.GetBody()
	if err != nil {
		return nil, false
	}
	defer body.Close()
	dec := json.NewDecoder(body)
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, false
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return nil, false
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, false
		}
		if key == "id" {
			return v, true
		}
	}
	return nil, false
}
