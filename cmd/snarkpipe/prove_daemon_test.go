package main

import (
	"context"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/snarkpipe/snarkpipe/rpc"
	"github.com/snarkpipe/snarkpipe/rpc/api"
	"github.com/snarkpipe/snarkpipe/rpc/client"
)

// TestProveAndStatusViaDaemon runs `snarkpipe prove winning --daemon` and `snarkpipe
// status` against a daemon on real sockets.
func TestProveAndStatusViaDaemon(t *testing.T) {
	cfg := testDaemonConfig(t)
	d, err := startDaemon(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer d.shutdown(time.Minute)
	in, err := makeDemoInputs()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	vfile, out := filepath.Join(dir, "winning.vproof"), filepath.Join(dir, "proof")
	os.WriteFile(vfile, in.winning, 0o600)
	url := "http://" + d.apiAddr.String()
	tok, _ := rpc.NewToken(d.secret, api.PermWrite)
	args := []string{"snarkpipe", "prove", "winning", "--daemon", url, "--token", tok, "--miner", "1000",
		"--post-proof", "StackedDrgWinning2KiBV1", "--randomness", hex.EncodeToString(in.randomness), "--vanilla", vfile, "--out", out}
	if err := run(context.Background(), args); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(out); err != nil || len(b) != 192 {
		t.Fatalf("proof file: %d bytes, %v", len(b), err)
	}
	// A read token is refused for proving, with the documented message.
	rtok, _ := rpc.NewToken(d.secret, api.PermRead)
	args[6] = rtok
	if err := run(context.Background(), args); err == nil || !strings.Contains(err.Error(), "missing permission to invoke 'GenerateWinningPoStWithVanilla' (need 'write')") {
		t.Fatalf("read token: %v", err)
	}
	if err := run(context.Background(), []string{"snarkpipe", "status", "--daemon", url, "--token", rtok}); err != nil {
		t.Fatal(err)
	}
	c, closer, err := client.New(context.Background(), url, rtok)
	if err != nil {
		t.Fatal(err)
	}
	defer closer()
	st, err := c.Status(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var sb strings.Builder
	printStatus(&sb, st)
	for _, want := range []string{"backend cpu", "DEV parameters", "winning-post", "StackedDrgWinning2KiBV1", "done"} {
		if !strings.Contains(sb.String(), want) {
			t.Errorf("status lacks %q:\n%s", want, sb.String())
		}
	}
}
