package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/filecoin-project/go-state-types/abi"

	"github.com/snarkpipe/snarkpipe/prover/srs/srstest"
	"github.com/snarkpipe/snarkpipe/rpc"
	"github.com/snarkpipe/snarkpipe/rpc/api"
	"github.com/snarkpipe/snarkpipe/rpc/client"
)

// testDaemonConfig is the demo configuration on free ports, with dev parameters from the
// shared test cache and files under the test's temporary directory.
func testDaemonConfig(t *testing.T) daemonConfig {
	t.Helper()
	cfg := defaultDaemonConfig()
	applyDemoDefaults(&cfg, false)
	dir := t.TempDir()
	cfg.DevParamDir = srstest.Cache(t).Dir
	cfg.RecordingsDir = filepath.Join(dir, "recordings")
	cfg.TokenSecret = filepath.Join(dir, "secret")
	cfg.StateDir = filepath.Join(dir, "state")
	cfg.Backend = "cpu"
	cfg.Pipeline.HostBudget, cfg.Pipeline.DeviceBudget = 8<<30, 8<<30
	if err := cfg.resolvePaths(); err != nil {
		t.Fatal(err)
	}
	if err := cfg.validate(); err != nil {
		t.Fatal(err)
	}
	return cfg
}

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestDaemonShutdownWithJobInFlight starts the daemon on real sockets, checks /healthz and
// /metrics, submits a Winning PoSt and shuts down while it runs: the job finishes (the
// deadline is generous), the caller gets its proof, and the listeners are closed after.
func TestDaemonShutdownWithJobInFlight(t *testing.T) {
	cfg := testDaemonConfig(t)
	d, err := startDaemon(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + d.metricAddr.String()
	if code, body := get(t, base+"/healthz"); code != 200 || strings.TrimSpace(body) != "ok" {
		t.Fatalf("healthz %d %q", code, body)
	}
	if code, body := get(t, base+"/metrics"); code != 200 || !strings.Contains(body, "go_goroutines") {
		t.Fatalf("metrics %d", code)
	}
	in, err := makeDemoInputs()
	if err != nil {
		t.Fatal(err)
	}
	tok, _ := rpc.NewToken(d.secret, api.PermWrite)
	c, closer, err := client.New(context.Background(), "http://"+d.apiAddr.String(), tok)
	if err != nil {
		t.Fatal(err)
	}
	defer closer()
	req := api.PoStRequest{ProofType: abi.RegisteredPoStProof_StackedDrgWinning2KiBV1, Miner: in.sector.Miner, Randomness: in.randomness, VanillaProofs: [][]byte{in.winning}}
	type result struct {
		r   *api.PoStResult
		err error
	}
	done := make(chan result, 1)
	go func() {
		r, err := c.GenerateWinningPoStWithVanilla(context.Background(), req)
		done <- result{r, err}
	}()
	waitUntil(t, func() bool {
		st, err := d.svc.Status(context.Background())
		return err == nil && len(st.Recent) == 1
	})
	start := time.Now()
	if err := d.shutdown(5 * time.Minute); err != nil {
		t.Fatalf("shutdown: %v", err)
	}
	res := <-done
	if res.err != nil || len(res.r.Proofs) != 1 || len(res.r.Proofs[0].ProofBytes) != 192 {
		t.Fatalf("in-flight call: %+v %v", res.r, res.err)
	}
	t.Logf("shutdown drained the job in %v", time.Since(start))
	if _, err := http.Get(base + "/healthz"); err == nil {
		t.Fatal("metrics listener still open after shutdown")
	}
	if _, err := c.Version(context.Background()); err == nil {
		t.Fatal("API still answering after shutdown")
	}
}

// TestDaemonShutdownDeadlineCancels: with a deadline too short for the job, the in-flight
// call gets a cancelled error and shutdown returns within the deadline plus slack.
func TestDaemonShutdownDeadlineCancels(t *testing.T) {
	cfg := testDaemonConfig(t)
	d, err := startDaemon(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	in, err := makeDemoInputs()
	if err != nil {
		t.Fatal(err)
	}
	tok, _ := rpc.NewToken(d.secret, api.PermWrite)
	c, closer, err := client.New(context.Background(), "http://"+d.apiAddr.String(), tok)
	if err != nil {
		t.Fatal(err)
	}
	defer closer()
	req := api.PoStRequest{ProofType: abi.RegisteredPoStProof_StackedDrgWinning2KiBV1, Miner: in.sector.Miner, Randomness: in.randomness, VanillaProofs: [][]byte{in.winning}}
	done := make(chan error, 1)
	go func() {
		_, err := c.GenerateWinningPoStWithVanilla(context.Background(), req)
		done <- err
	}()
	waitUntil(t, func() bool {
		st, err := d.svc.Status(context.Background())
		return err == nil && len(st.Recent) == 1
	})
	start := time.Now()
	d.shutdown(time.Millisecond)
	if took := time.Since(start); took > 30*time.Second {
		t.Fatalf("shutdown took %v", took)
	}
	err = <-done
	var e *api.Error
	if err == nil {
		t.Skip("the job finished within 1 ms of the shutdown")
	}
	if !errors.As(err, &e) || e.Code != api.CodeCancelled {
		t.Fatalf("in-flight call after deadline: %v", err)
	}
}

func waitUntil(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("timed out")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestConfigDefaultRoundTrips(t *testing.T) {
	s, err := commentedDefault()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "c.toml")
	if err := os.WriteFile(path, []byte(s), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := loadDaemonConfig(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := cfg.validate(); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(s, "# auto (GPU if present, else CPU)") || cfg.Listen != defaultListen {
		t.Fatalf("default config:\n%s", s)
	}
	os.WriteFile(path, bytes.Replace([]byte(s), []byte(`backend = "auto"`), []byte(`backend = "tpu"`), 1), 0o600)
	cfg, err = loadDaemonConfig(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := cfg.validate(); err == nil || !strings.Contains(err.Error(), `backend "tpu"`) {
		t.Fatalf("bad backend: %v", err)
	}
	os.WriteFile(path, []byte("listen = \"x\"\nlisten_typo = 1\n"), 0o600)
	if _, err := loadDaemonConfig(path); err == nil || !strings.Contains(err.Error(), "listen_typo") {
		t.Fatalf("unknown key: %v", err)
	}
	if !strings.Contains(s, "gpu_proof_streams = 0") {
		t.Fatalf("default config lacks gpu_proof_streams = 0:\n%s", s)
	}
	os.WriteFile(path, []byte("gpu_proof_streams = 9\n"), 0o600)
	cfg, _ = loadDaemonConfig(path)
	if err := cfg.validate(); err == nil || !strings.Contains(err.Error(), "gpu_proof_streams 9") {
		t.Fatalf("gpu_proof_streams out of range: %v", err)
	}
	os.WriteFile(path, []byte("[sealer]\nseal_priority = \"urgent\"\n"), 0o600)
	cfg, _ = loadDaemonConfig(path)
	if err := cfg.validate(); err == nil || !strings.Contains(err.Error(), "[sealer]") {
		t.Fatalf("bad sealer section: %v", err)
	}
}

// TestDaemonDemoOnce runs the README's main job (the embedded demo with --once) and checks
// its timing table. The 2 KiB C2 makes it long: skipped with -short (the README command
// itself is the CI check).
func TestDaemonDemoOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("2 KiB C2 on the CPU: skipped with -short")
	}
	cfg := testDaemonConfig(t)
	var out bytes.Buffer
	if err := runDaemon(context.Background(), &out, cfg, true, true); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	for _, line := range strings.Split(out.String(), "\n") {
		if len(line) > 200 {
			t.Errorf("demo line of %d characters: %s", len(line), line)
		}
	}
	for _, want := range []string{"WindowPoSt 2KiB", "WinningPoSt 2KiB", "SealCommit2 2KiB", "demo: sector 1 of miner f01000 (StackedDrg2KiBV1_1, CommR bagboea4b5abc", "proved and verified"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("demo output lacks %q:\n%s", want, out.String())
		}
	}
}

// TestDaemonOfficialParamsMissing: without --dev and with an empty parameter directory no
// proof type is servable, and a request is refused as temporary, naming the missing file.
func TestDaemonOfficialParamsMissing(t *testing.T) {
	cfg := testDaemonConfig(t)
	cfg.Dev = false
	cfg.ParamDir = t.TempDir()
	d, err := startDaemon(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer d.shutdown(time.Minute)
	for _, p := range d.svc.ProofTypes() {
		if p.Servable {
			t.Errorf("%s servable without parameter files", p.Name)
		}
	}
	in, err := makeDemoInputs()
	if err != nil {
		t.Fatal(err)
	}
	tok, _ := rpc.NewToken(d.secret, api.PermWrite)
	c, closer, err := client.New(context.Background(), "http://"+d.apiAddr.String(), tok)
	if err != nil {
		t.Fatal(err)
	}
	defer closer()
	_, err = c.GenerateWinningPoStWithVanilla(context.Background(), api.PoStRequest{ProofType: abi.RegisteredPoStProof_StackedDrgWinning2KiBV1, Miner: in.sector.Miner, Randomness: in.randomness, VanillaProofs: [][]byte{in.winning}})
	var e *api.Error
	if !errors.As(err, &e) || e.Code != api.CodeUnavailable || !strings.Contains(e.Message, "missing v28-proof-of-spacetime-fallback") || !e.Data.Temporary {
		t.Fatalf("winning without parameters: %v", err)
	}
}
