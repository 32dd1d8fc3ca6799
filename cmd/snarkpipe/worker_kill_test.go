package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/BurntSushi/toml"
	"github.com/filecoin-project/go-jsonrpc"
	"github.com/filecoin-project/lotus/storage/sealer/storiface"

	"github.com/snarkpipe/snarkpipe/prover/srs/srstest"
	"github.com/snarkpipe/snarkpipe/sealer/porep"
	"github.com/snarkpipe/snarkpipe/types"
)

// TestWorkerKilledDuringC2 is the acceptance test of the call tracking with a real process:
// `snarkpipe worker run` takes a 2 KiB C2 from the test miner and is killed (SIGKILL) while
// proving; the process started again over the same state directory answers that call with
// ErrTempWorkerRestart (101). Skipped with -short: it builds the binary and proves on the
// CPU with dev parameters.
func TestWorkerKilledDuringC2(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and starts a 2 KiB C2 on the CPU: skipped with -short")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "snarkpipe")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	// Warm the dev parameters first, so that the kill cannot land in their generation.
	info, _ := types.SealProof(demoSealProof)
	blank, err := porep.Blank(porep.ConfigFor(info))
	if err != nil {
		t.Fatal(err)
	}
	_, params := srstest.DevParams(t, blank)
	params.Close()
	cfg := testDaemonConfig(t)
	cfg.LogLevel = "warn"
	cfgPath := filepath.Join(dir, "daemon.toml")
	f, err := os.Create(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := toml.NewEncoder(f).Encode(cfg); err != nil {
		t.Fatal(err)
	}
	f.Close()

	m := &workerTestMiner{returns: make(chan workerReturn, 4)}
	ms := m.serve(t)
	state := filepath.Join(dir, "state")
	start := func() *exec.Cmd {
		cmd := exec.Command(bin, "worker", "run", "--config", cfgPath, "--miner-api-info", "worker-token:"+ms.URL+"/rpc/v0",
			"--role", "c2", "--listen", "127.0.0.1:0", "--state-dir", state)
		var out syncBuffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			cmd.Process.Kill()
			cmd.Wait()
			if t.Failed() {
				t.Logf("worker output:\n%s", out.String())
			}
		})
		return cmd
	}

	first := start()
	url := m.waitURLs(t, 1, 2*time.Minute)[0]
	in, err := makeDemoInputs()
	if err != nil {
		t.Fatal(err)
	}
	var c struct {
		SealCommit2 func(context.Context, storiface.SectorRef, storiface.Commit1Out) (storiface.CallID, error)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	closer, err := jsonrpc.NewMergeClient(ctx, url, "Filecoin", []any{&c}, map[string][]string{"Authorization": {"Bearer miner-token"}})
	if err != nil {
		t.Fatal(err)
	}
	defer closer()
	ci, err := c.SealCommit2(ctx, storiface.SectorRef{ID: in.sector, ProofType: demoSealProof}, in.c1)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Second) // into decoding, verification and synthesis
	if err := first.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	first.Wait()
	select {
	case r := <-m.returns:
		t.Fatalf("the killed worker reported %+v", r)
	default:
	}

	start()
	select {
	case r := <-m.returns:
		if r.id != ci || r.cerr == nil || r.cerr.Code != storiface.ErrTempWorkerRestart {
			t.Fatalf("after restart the miner got %+v (error %+v), want ErrTempWorkerRestart for %v", r.id, r.cerr, ci)
		}
	case <-time.After(2 * time.Minute):
		t.Fatal("the restarted worker did not report the interrupted call")
	}
	if n := len(m.waitURLs(t, 2, time.Minute)); n != 2 {
		t.Fatalf("%d registrations, want 2", n)
	}
}

// syncBuffer is a bytes.Buffer safe for the child's stdout and stderr writers.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
