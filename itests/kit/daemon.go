package kit

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/snarkpipe/snarkpipe/prover/srs/srstest"
	"github.com/snarkpipe/snarkpipe/rpc"
	"github.com/snarkpipe/snarkpipe/rpc/api"
	"github.com/snarkpipe/snarkpipe/rpc/client"
)

// DaemonOptions say how StartDaemon runs snarkpipe.
type DaemonOptions struct {
	// Subcommand is what runs: {"daemon"} when empty; {"worker", "run"} for the lotus
	// worker (which starts the same service and registers with a miner).
	Subcommand []string
	// Args follow the subcommand and the generated --config (e.g. "--backend", "cpu").
	Args []string
	// Env is added to the test process's environment.
	Env []string
	// DataDir holds the configuration, token secret, cuzk socket and logs; a new
	// temporary directory when empty.
	DataDir string
	// HostMemory is the pipeline's host budget, e.g. "2GiB" (default 6GiB).
	HostMemory string
	// SynthesisWorkers sets the pipeline's synthesis_workers (0: the daemon's default,
	// a quarter of the CPUs). The load tests pin it to 1 so that a queue forms the same
	// way on a 16-core GPU host as on a 2-core CI machine.
	SynthesisWorkers int
	// NoCuzk leaves Curio's gRPC endpoint off (it is on by default, on a unix socket).
	NoCuzk bool
	// ReadyTimeout bounds the wait for the API line (default 2 minutes).
	ReadyTimeout time.Duration
	// ExtraConfig is TOML appended to the generated configuration, for sections the kit
	// does not write (e.g. "[sealer]\nmax_jobs = 2\n").
	ExtraConfig string
}

// Daemon is a running snarkpipe process.
type Daemon struct {
	// Addr is host:port of the native JSON-RPC API (http://Addr/rpc/v0).
	Addr string
	// Token is an admin token for the native API.
	Token string
	// CuzkAddr is Curio's [Cuzk] Address for this daemon ("unix:///…/cuzk.sock"), empty
	// with NoCuzk.
	CuzkAddr string
	// DataDir is the daemon's data directory (kept across Restart).
	DataDir string

	opts DaemonOptions
	args []string

	mu   sync.Mutex
	proc *process
	runs int
}

// StartDaemon starts snarkpipe on loopback ports (127.0.0.1:0; the bound address is read
// from the line the daemon prints) with dev parameters from the shared test cache, waits
// until it serves, and stops it at the end of the test (SIGTERM, then SIGKILL). Its output
// is kept in the data directory and printed when the test fails.
func StartDaemon(t testing.TB, o DaemonOptions) *Daemon {
	t.Helper()
	bin := Binary(t)
	root, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	if o.DataDir == "" {
		o.DataDir = t.TempDir()
	}
	if len(o.Subcommand) == 0 {
		o.Subcommand = []string{"daemon"}
	}
	if o.HostMemory == "" {
		o.HostMemory = defaultHostMemory
	}
	if o.ReadyTimeout == 0 {
		o.ReadyTimeout = 2 * time.Minute
	}
	budget, err := parseBytes(o.HostMemory)
	if err != nil {
		t.Fatal(err)
	}
	cache := srstest.Cache(t).Dir
	conf := daemonTOML{
		devParamDir: cache, recordingsDir: filepath.Join(cache, "itest-recordings"),
		secret: filepath.Join(o.DataDir, "token-secret"), hostBudget: budget, synthWorkers: o.SynthesisWorkers, extra: o.ExtraConfig,
	}
	d := &Daemon{DataDir: o.DataDir, opts: o}
	if !o.NoCuzk {
		conf.cuzkSocket = filepath.Join(o.DataDir, "cuzk.sock")
		d.CuzkAddr = "unix://" + conf.cuzkSocket
	}
	secret, err := rpc.LoadOrCreateSecret(conf.secret)
	if err != nil {
		t.Fatal(err)
	}
	if d.Token, err = rpc.NewToken(secret, api.PermAdmin); err != nil {
		t.Fatal(err)
	}
	cfgPath, err := conf.write(o.DataDir)
	if err != nil {
		t.Fatal(err)
	}
	d.args = append(append(append([]string{}, o.Subcommand...), "--config", cfgPath), o.Args...)
	d.start(t, bin, root)
	return d
}

// start runs one incarnation and registers its teardown and log report on t.
func (d *Daemon) start(t testing.TB, bin, root string) {
	t.Helper()
	d.mu.Lock()
	d.runs++
	logPath := filepath.Join(d.DataDir, fmt.Sprintf("snarkpipe-%d.log", d.runs))
	d.mu.Unlock()
	p, err := startProcess(bin, root, logPath, d.args, d.opts.Env)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := p.stop(30 * time.Second); err != nil {
			t.Errorf("%v", err)
		}
		if t.Failed() {
			t.Logf("kit: output of snarkpipe %v (%s):\n%s", d.args, logPath, p.tail(64<<10))
		}
	})
	addr, err := p.waitReady(d.opts.ReadyTimeout)
	if err != nil {
		p.kill()
		t.Fatalf("%v\n%s", err, p.tail(64<<10))
	}
	d.mu.Lock()
	d.proc, d.Addr = p, addr
	d.mu.Unlock()
}

// Kill sends SIGKILL and waits until the process is gone.
func (d *Daemon) Kill() {
	d.mu.Lock()
	p := d.proc
	d.mu.Unlock()
	p.kill()
}

// Stop sends SIGTERM and waits for the graceful exit (SIGKILL after 30 s).
func (d *Daemon) Stop(t testing.TB) {
	t.Helper()
	d.mu.Lock()
	p := d.proc
	d.mu.Unlock()
	if err := p.stop(30 * time.Second); err != nil {
		t.Error(err)
	}
}

// Restart starts the daemon again on the same data directory (stopping it first if it
// still runs). The API port may change: Addr is updated.
func (d *Daemon) Restart(t testing.TB) {
	t.Helper()
	d.mu.Lock()
	p := d.proc
	d.mu.Unlock()
	if err := p.stop(30 * time.Second); err != nil {
		t.Error(err)
	}
	root, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	d.start(t, Binary(t), root)
}

// Running reports whether the current process is alive.
func (d *Daemon) Running() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.proc.running()
}

// RoleURL is the URL a `worker run` process advertises for a lotus role (c2, wdpost,
// winpost), as it printed it; empty if it did not.
func (d *Daemon) RoleURL(role string) string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.proc.role(role)
}

// MetricsAddr is host:port of the daemon's /healthz and /metrics listener, as it printed
// it right after its API line (waiting up to 5 s for that line); empty for `worker run`,
// which does not print it.
func (d *Daemon) MetricsAddr() string {
	d.mu.Lock()
	p := d.proc
	d.mu.Unlock()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if a := p.metricsAddr(); a != "" {
			return a
		}
	}
	return ""
}

// Log is the output of the current process so far (at most its last 1 MiB).
func (d *Daemon) Log() string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.proc.tail(1 << 20)
}

// Client is a native JSON-RPC client with the admin token, closed at the end of the test.
func (d *Daemon) Client(t testing.TB) api.SnarkPipe {
	t.Helper()
	c, closer, err := client.New(context.Background(), "http://"+d.Addr, d.Token)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(closer)
	return c
}

// SecretPath is the daemon's token secret (to mint tokens of other permissions).
func (d *Daemon) SecretPath() string { return filepath.Join(d.DataDir, "token-secret") }

// TokenWith mints a native-API token with perm ("read", "write" or "admin").
func (d *Daemon) TokenWith(t testing.TB, perm string) string {
	t.Helper()
	secret, err := os.ReadFile(d.SecretPath())
	if err != nil {
		t.Fatal(err)
	}
	tok, err := rpc.NewToken(secret, perm)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}
