package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestStatusFindsLocalDaemon: a running daemon leaves its URL and a read token in its
// state directory; status finds it there without --daemon or --token, and the files go
// when the daemon stops. A wrong token's error names the command that makes one.
func TestStatusFindsLocalDaemon(t *testing.T) {
	t.Setenv("SNARKPIPE_API_TOKEN", "")
	cfg := testDaemonConfig(t)
	d, err := startDaemon(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	conf := filepath.Join(t.TempDir(), "daemon.toml")
	if err := os.WriteFile(conf, []byte("state_dir = \""+cfg.StateDir+"\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := runCaptured(t, "status", "--config", conf)
	if err != nil {
		t.Fatalf("status without --daemon: %v", err)
	}
	if !strings.Contains(out, "backend cpu") {
		t.Fatalf("status:\n%s", out)
	}
	_, err = runCaptured(t, "status", "--config", conf, "--token", "not-a-token")
	if err == nil || !strings.Contains(err.Error(), "snarkpipe auth create-token --perm read") {
		t.Fatalf("want the token command named, got %v", err)
	}
	_, err = runCaptured(t, "status", "--daemon", "http://"+d.apiAddr.String())
	if err == nil || !strings.Contains(err.Error(), "(need 'read'); make a token with: snarkpipe auth create-token --perm read") {
		t.Fatalf("status without a token: %v", err)
	}
	if err := d.shutdown(time.Minute); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(cfg.StateDir, apiFileName)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("api file left after shutdown: %v", err)
	}
	_, err = runCaptured(t, "status", "--config", conf)
	if err == nil || !strings.Contains(err.Error(), "no running daemon found") {
		t.Fatalf("status with no daemon: %v", err)
	}
}
