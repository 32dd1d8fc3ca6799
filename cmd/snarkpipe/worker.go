package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	logging "github.com/ipfs/go-log/v2"
	"github.com/urfave/cli/v2"

	"github.com/snarkpipe/snarkpipe/rpc/lotus"
)

var workerCmd = &cli.Command{
	Name:        "worker",
	Usage:       "lotus-worker mode: lotus-miner delegates C2, SnapDeals (ProveReplicaUpdate2) and Window/Winning PoSt to this process",
	Subcommands: []*cli.Command{workerRunCmd},
}

var workerRunCmd = &cli.Command{
	Name:  "run",
	Usage: "start the proving service and register each role with lotus-miner (WorkerConnect)",
	Description: `Each role is its own lotus worker (own URL /<role>/rpc/v0 and Session UUID, kept in
--state-dir): c2 takes SealCommit2 and, while update parameters are servable,
ProveReplicaUpdate2; wdpost GenerateWindowPoSt; winpost GenerateWinningPoSt.
On the miner, set [Storage] AllowCommit = false to send every C2 here,
[Storage] AllowProveReplicaUpdate2 = false to send every SnapDeals proof here, and
[Proving] DisableBuiltinWindowPoSt / DisableBuiltinWinningPoSt for PoSt.
Keep --listen (its port) fixed across restarts: the Sessions persist, and lotus-miner keeps
the URL it first saw for a worker that reconnects with a Session it already knows.`,
	Flags: []cli.Flag{
		&cli.StringFlag{Name: "miner-api-info", EnvVars: []string{"MINER_API_INFO"}, Required: true, Usage: "`TOKEN:MULTIADDR` of lotus-miner (what lotus-miner auth api-info --perm admin prints)"},
		&cli.StringFlag{Name: "role", Value: "c2", Usage: "comma-separated roles: c2, wdpost, winpost"},
		&cli.StringFlag{Name: "listen", Value: "0.0.0.0:3456", Usage: "worker listener (the miner connects here)"},
		&cli.StringFlag{Name: "advertise", Usage: "base URL the miner reaches us at (default: http://<our address on the route to the miner>:<port>)"},
		&cli.StringFlag{Name: "state-dir", Usage: "Session UUIDs and tracked calls (default: user config dir/snarkpipe/lotus-worker)"},
		&cli.StringFlag{Name: "miner-jwt-secret", Usage: "verify the miner's tokens locally with its API secret (lotus-miner repo keystore/MF2XI2BNNJ3XILLQOJUXMYLUMU, or a raw secret file) instead of asking its AuthVerify"},
		&cli.StringFlag{Name: "hostname", Usage: "hostname shown by the miner (default: os.Hostname)"},
		&cli.IntFlag{Name: "c2-max-concurrent", Value: lotus.DefaultConfig().C2MaxConcurrent, Usage: "C2 calls the miner may keep in flight here"},
		&cli.IntFlag{Name: "post-max-concurrent", Value: lotus.DefaultConfig().PoStMaxConcurrent, Usage: "PoSt calls per PoSt role the miner may keep in flight here"},
		&cli.IntFlag{Name: "post-parallel-reads", Value: lotus.DefaultConfig().PoStParallelReads, Usage: "vanilla proof reads in flight per PoSt call"},
		&cli.DurationFlag{Name: "post-read-timeout", Value: lotus.DefaultConfig().PoStReadTimeout, Usage: "per-sector vanilla proof read timeout (a sector over it is skipped)"},
		&cli.StringFlag{Name: "config", Usage: "daemon TOML configuration `FILE` (snarkpipe config default prints a commented one)"},
		&cli.BoolFlag{Name: "dev", Usage: "prove with dev parameters (proofs NOT valid on chain)"},
		&cli.StringFlag{Name: "backend", Usage: "override backend: auto, gpu or cpu"},
		&cli.StringFlag{Name: "api-listen", Usage: "override the native JSON-RPC API listener (host:port)"},
	},
	Action: func(c *cli.Context) error {
		cfg, err := loadDaemonConfig(c.String("config"))
		if err != nil {
			return err
		}
		if c.Bool("dev") {
			cfg.Dev = true
		}
		if c.IsSet("backend") {
			cfg.Backend = c.String("backend")
		}
		if c.IsSet("api-listen") {
			cfg.Listen = c.String("api-listen")
		}
		if err := cfg.resolvePaths(); err != nil {
			return err
		}
		if err := cfg.validate(); err != nil {
			return err
		}
		if err := logging.SetLogLevel("*", cfg.LogLevel); err != nil {
			return err
		}
		opts, err := workerOptionsFrom(c)
		if err != nil {
			return err
		}
		return runWorker(c.Context, c.App.Writer, cfg, opts)
	},
}

// workerOptions are the worker's settings beyond the daemon's configuration.
type workerOptions struct {
	lotus     lotus.Config
	miner     lotus.APIInfo
	listen    string
	advertise string
	stateDir  string
	// jwtSecret, when set, verifies the miner's tokens locally.
	jwtSecret []byte
}

func workerOptionsFrom(c *cli.Context) (workerOptions, error) {
	wcfg := lotus.DefaultConfig()
	roles, err := lotus.ParseRoles(c.String("role"))
	if err != nil {
		return workerOptions{}, err
	}
	wcfg.Roles = roles
	wcfg.Hostname = c.String("hostname")
	wcfg.C2MaxConcurrent = c.Int("c2-max-concurrent")
	wcfg.PoStMaxConcurrent = c.Int("post-max-concurrent")
	wcfg.PoStParallelReads = c.Int("post-parallel-reads")
	wcfg.PoStReadTimeout = c.Duration("post-read-timeout")
	if err := wcfg.Validate(); err != nil {
		return workerOptions{}, err
	}
	info, err := lotus.ParseAPIInfo(c.String("miner-api-info"))
	if err != nil {
		return workerOptions{}, err
	}
	dir := c.String("state-dir")
	if dir == "" {
		conf, err := os.UserConfigDir()
		if err != nil {
			return workerOptions{}, fmt.Errorf("no --state-dir and no user config dir: %w", err)
		}
		dir = filepath.Join(conf, "snarkpipe", "lotus-worker")
	}
	opts := workerOptions{lotus: wcfg, miner: info, listen: c.String("listen"), advertise: c.String("advertise"), stateDir: dir}
	if p := c.String("miner-jwt-secret"); p != "" {
		if opts.jwtSecret, err = lotus.ReadJWTSecret(p); err != nil {
			return workerOptions{}, err
		}
	}
	return opts, nil
}

// runWorker starts the service (the daemon's, with its API) and the lotus worker adapter,
// registers every role and serves until ctx ends; then it retires the roles, lets calls in
// flight finish and report (bounded by shutdown_timeout) and stops.
func runWorker(ctx context.Context, out io.Writer, cfg daemonConfig, opts workerOptions) error {
	miner, closeMiner, err := lotus.DialMiner(ctx, opts.miner)
	if err != nil {
		return err
	}
	defer closeMiner()
	d, err := startDaemon(ctx, cfg)
	if err != nil {
		return err
	}
	timeout := time.Duration(cfg.ShutdownTimeout)
	verify := lotus.MinerVerifier(miner, 5*time.Minute)
	if opts.jwtSecret != nil {
		verify = lotus.SecretVerifier(opts.jwtSecret)
	}
	w, err := lotus.New(opts.lotus, lotus.Deps{
		Prover: d.svc, Miner: miner, MinerAuth: opts.miner.AuthHeader(),
		Verify: verify, StateDir: opts.stateDir,
		Log: slog.New(slog.NewTextHandler(os.Stderr, nil)).With("component", "lotus-worker"),
	})
	if err != nil {
		return errors.Join(err, d.shutdown(timeout))
	}
	ln, err := net.Listen("tcp", opts.listen)
	if err != nil {
		w.Close()
		return errors.Join(&bindError{endpoint: "lotus worker endpoint", key: "--listen", addr: opts.listen, err: err}, d.shutdown(timeout))
	}
	srv := &http.Server{Handler: w.Handler(), ReadHeaderTimeout: 30 * time.Second}
	go srv.Serve(ln)
	base, err := advertiseURL(opts.advertise, ln.Addr(), opts.miner.URL)
	if err == nil {
		fmt.Fprintf(out, "snarkpipe worker: native API http://%s/rpc/v0, backend %s, %s parameters\n", d.apiAddr, d.backend, provenanceKind(cfg))
		reportServable(out, d.svc)
		sessions := w.Sessions()
		for _, r := range opts.lotus.Roles {
			fmt.Fprintf(out, "  role %-7s %s%s (session %s, task %s)\n", r, base, r.Path(), sessions[r], r.TaskType())
		}
		fmt.Fprintln(out, "  the role endpoints take lotus-miner's admin tokens (the one in MINER_API_INFO); snarkpipe auth tokens are for the native API")
		regCtx, stopReg := context.WithCancel(ctx)
		regErr := make(chan error, 1)
		go func() { regErr <- w.Register(regCtx, base) }()
		select {
		case <-ctx.Done():
		case err = <-regErr:
			err = fmt.Errorf("registering with lotus-miner: %w", err)
		}
		stopReg()
	}
	fmt.Fprintf(out, "snarkpipe worker: stopping (calls in flight get %v)\n", timeout)
	dctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	drainErr := w.Drain(dctx)
	srv.Shutdown(dctx)
	w.Close()
	return errors.Join(err, drainErr, d.shutdown(timeout))
}

// advertiseURL is the base URL the miner is told: the flag if given, else the listener's
// address, with an unspecified host (0.0.0.0, ::) replaced by our address on the route to
// the miner, as lotus-worker does.
func advertiseURL(flag string, addr net.Addr, minerURL string) (string, error) {
	if flag != "" {
		u, err := url.Parse(flag)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return "", fmt.Errorf("--advertise %q: want http://host:port", flag)
		}
		return strings.TrimSuffix(flag, "/"), nil
	}
	tcp, ok := addr.(*net.TCPAddr)
	if !ok {
		return "", fmt.Errorf("listener address %v is not TCP", addr)
	}
	if !tcp.IP.IsUnspecified() {
		return "http://" + tcp.String(), nil
	}
	mu, err := url.Parse(minerURL)
	if err != nil {
		return "", err
	}
	conn, err := net.DialTimeout("tcp", mu.Host, 10*time.Second)
	if err != nil {
		return "", fmt.Errorf("finding our address on the route to the miner (%s): %w; set --advertise", mu.Host, err)
	}
	defer conn.Close()
	local := conn.LocalAddr().(*net.TCPAddr)
	return "http://" + net.JoinHostPort(local.IP.String(), fmt.Sprint(tcp.Port)), nil
}
