package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/snarkpipe/snarkpipe/rpc"
	"github.com/snarkpipe/snarkpipe/rpc/cuzk/cuzkpb"
	"github.com/snarkpipe/snarkpipe/rpc/remotec2"
)

// TestDaemonCurioEndpoints starts the daemon (CPU backend, dev parameters, nothing
// proved) with the Curio endpoint on a unix socket and checks both foreign endpoints are
// wired: GetStatus answers over the socket, the RemoteCommit2 path is behind the API's
// tokens and refuses a bad body with a 400, and shutdown removes the socket.
func TestDaemonCurioEndpoints(t *testing.T) {
	dir := t.TempDir()
	cfg := defaultDaemonConfig()
	cfg.Listen, cfg.MetricsListen, cfg.Backend, cfg.Dev = "127.0.0.1:0", "", "cpu", true
	cfg.DevParamDir, cfg.RecordingsDir, cfg.TokenSecret = filepath.Join(dir, "dev"), filepath.Join(dir, "rec"), filepath.Join(dir, "secret")
	cfg.StateDir = filepath.Join(dir, "state")
	sock := filepath.Join(dir, "cuzk.sock")
	cfg.Cuzk.Enabled, cfg.Cuzk.Listen = true, "unix://"+sock
	if err := cfg.resolvePaths(); err != nil {
		t.Fatal(err)
	}
	if err := cfg.validate(); err != nil {
		t.Fatal(err)
	}
	d, err := startDaemon(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	stopped := false
	t.Cleanup(func() {
		if !stopped {
			_ = d.shutdown(5 * time.Second)
		}
	})

	conn, err := grpc.NewClient(cfg.Cuzk.Listen, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	st, err := cuzkpb.NewProvingEngineClient(conn).GetStatus(ctx, &cuzkpb.GetStatusRequest{})
	if err != nil || len(st.GetQueues()) != 4 {
		t.Fatalf("GetStatus over %s: %v, %v", sock, st, err)
	}

	url := "http://" + d.apiAddr.String() + remotec2.Path
	tok, err := rpc.NewToken(d.secret, "write")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		url    string
		status int
		msgHas string
	}{
		{url, http.StatusUnauthorized, "no token"},
		{url + "?token=" + tok, http.StatusBadRequest, "RemoteCommit2Params"},
	} {
		resp, err := http.Post(tc.url, "application/json", bytes.NewReader([]byte("not json")))
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tc.status || !strings.Contains(string(body), tc.msgHas) {
			t.Fatalf("%s: %d %q", tc.url, resp.StatusCode, body)
		}
	}

	stopped = true
	if err := d.shutdown(5 * time.Second); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(sock); !os.IsNotExist(err) {
		t.Fatalf("socket left after shutdown: %v", err)
	}
}
