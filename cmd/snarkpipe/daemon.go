package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	logging "github.com/ipfs/go-log/v2"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/urfave/cli/v2"

	"github.com/snarkpipe/snarkpipe/prover"
	"github.com/snarkpipe/snarkpipe/prover/groth16"
	"github.com/snarkpipe/snarkpipe/prover/pipeline"
	"github.com/snarkpipe/snarkpipe/rpc"
	"github.com/snarkpipe/snarkpipe/rpc/cuzk"
	"github.com/snarkpipe/snarkpipe/sealer"
	"github.com/snarkpipe/snarkpipe/types"
)

var log = logging.Logger("snarkpipe")

// jobLog is the sealer's job log, written through go-log like the daemon's own lines (and
// filtered by the same log_level).
func jobLog() *slog.Logger {
	return slog.New(logging.SlogHandler()).With("logger", "snarkpipe/jobs")
}

var daemonCmd = &cli.Command{
	Name:  "daemon",
	Usage: "run the proving service (JSON-RPC API, /healthz and /metrics)",
	Flags: []cli.Flag{
		&cli.StringFlag{Name: "config", Usage: "TOML configuration `FILE` (snarkpipe config default prints a commented one)"},
		&cli.BoolFlag{Name: "dev", Usage: "prove with dev parameters (made once, cached; proofs NOT valid on chain)"},
		&cli.BoolFlag{Name: "allow-dev-params", Usage: "accept dev files under the official names in param_dir (bench --write-params; proofs NOT valid on chain)"},
		&cli.StringFlag{Name: "listen", Usage: "override listen (host:port; port 0 picks a free one)"},
		&cli.StringFlag{Name: "backend", Usage: "override backend: auto, gpu or cpu"},
		&cli.BoolFlag{Name: "demo", Usage: "embedded demo: dev parameters, listen on a free port, prove a built-in 2 KiB sector's C2, Winning and Window PoSt through the API and print the timings"},
		&cli.BoolFlag{Name: "once", Usage: "with --demo: exit after the demo instead of serving"},
	},
	Action: func(c *cli.Context) error {
		cfg, err := loadDaemonConfig(c.String("config"))
		if err != nil {
			return err
		}
		if c.Bool("demo") {
			applyDemoDefaults(&cfg, c.IsSet("listen"))
		}
		if c.Bool("dev") {
			cfg.Dev = true
		}
		if c.Bool("allow-dev-params") {
			cfg.AllowDevParams = true
		}
		if c.IsSet("listen") {
			cfg.Listen = c.String("listen")
		}
		if c.IsSet("backend") {
			cfg.Backend = c.String("backend")
		}
		if c.Bool("once") && !c.Bool("demo") {
			return errors.New("--once only applies with --demo")
		}
		return runDaemon(c.Context, c.App.Writer, cfg, c.Bool("demo"), c.Bool("once"))
	},
}

// daemon is a running service with its listeners.
type daemon struct {
	cfg        daemonConfig
	pipe       *pipeline.Pipeline
	svc        *sealer.Service
	api        *http.Server
	apiAddr    net.Addr
	metrics    *http.Server
	metricAddr net.Addr
	cuzk       *cuzk.Server
	secret     []byte
	backend    string
	draining   chan struct{}
	apiFile    *apiFile
}

// runDaemon starts the daemon, runs the demo when asked, serves until ctx ends (the first
// signal) and shuts down gracefully; a second signal exits at once.
func runDaemon(ctx context.Context, w io.Writer, cfg daemonConfig, demo, once bool) error {
	if err := cfg.resolvePaths(); err != nil {
		return err
	}
	if err := cfg.validate(); err != nil {
		return err
	}
	if err := logging.SetLogLevel("*", cfg.LogLevel); err != nil {
		return err
	}
	d, err := startDaemon(ctx, cfg)
	if err != nil {
		return err
	}
	reportStart(w, d)
	if demo {
		err := runDemo2KiB(ctx, w, "http://"+d.apiAddr.String(), d.secret)
		if err != nil || once {
			return errors.Join(err, d.shutdown(time.Duration(cfg.ShutdownTimeout)))
		}
		fmt.Fprintf(w, "demo: the daemon keeps serving at http://%s/rpc/v0 (Ctrl-C stops it); in another terminal: snarkpipe status\n", d.apiAddr)
	}
	<-ctx.Done()
	forced := make(chan os.Signal, 1)
	signal.Notify(forced, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(forced)
	go func() {
		if _, ok := <-forced; ok {
			fmt.Fprintln(os.Stderr, "snarkpipe: second signal, exiting without waiting for jobs")
			os.Exit(2)
		}
	}()
	fmt.Fprintf(w, "snarkpipe daemon: shutting down (running jobs get %v)\n", time.Duration(cfg.ShutdownTimeout))
	return d.shutdown(time.Duration(cfg.ShutdownTimeout))
}

func provenanceKind(cfg daemonConfig) string {
	if cfg.Dev {
		return "dev (" + cfg.DevParamDir + ")"
	}
	if cfg.AllowDevParams {
		return "official names, dev files allowed (" + cfg.ParamDir + ")"
	}
	return "official (" + cfg.ParamDir + ")"
}

// reportServable says which proof types this daemon can serve, and why not the others.
func reportServable(w io.Writer, svc *sealer.Service) {
	var entries []proofTypeEntry
	for _, p := range svc.ProofTypes() {
		entries = append(entries, proofTypeEntry{name: p.Name, kind: p.Kind, servable: p.Servable, reason: p.Reason})
	}
	printServable(w, "  ", entries)
}

// startDaemon builds backend, pipeline, service and listeners.
func startDaemon(ctx context.Context, cfg daemonConfig) (*daemon, error) {
	secret, err := loadSecret(cfg.TokenSecret)
	if err != nil {
		return nil, err
	}
	backends, desc, gpu, devices, err := chooseBackends(cfg)
	if err != nil {
		return nil, err
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	params := newReportingParams(cfg.Dev, cfg.AllowDevParams, cfg.DevParamDir, cfg.ParamDir)
	servable, provenance := officialParams(cfg.ParamDir, cfg.AllowDevParams)
	verifyingKey := officialVerifyingKeys(cfg.ParamDir)
	if cfg.Dev {
		servable, verifyingKey = nil, nil
		provenance = func(prover.CircuitID) string { return "dev (untrusted setup) " + cfg.DevParamDir }
	}
	codeID, err := pipeline.CodeIDOfExecutable()
	if err != nil {
		log.Warnw("circuit keys will be probed at every start", "err", err)
	}
	pipe, err := pipeline.New(cfg.Pipeline, pipeline.Deps{Backends: backends, Params: params, Registerer: reg, CodeID: codeID,
		OnRecord: reportRecording})
	if err != nil {
		return nil, err
	}
	pipe.Start()
	svc, err := sealer.New(cfg.Sealer, sealer.Deps{
		Prover: pipe, Backend: desc, GPU: gpu, Devices: devices, DevParams: cfg.Dev || cfg.AllowDevParams, Provenance: provenance, Servable: servable,
		VerifyingKey: verifyingKey, Log: jobLog(),
	})
	if err != nil {
		pipe.Close()
		return nil, err
	}
	d := &daemon{cfg: cfg, pipe: pipe, svc: svc, secret: secret, backend: desc, draining: make(chan struct{})}
	if err := d.listen(reg); err != nil {
		pipe.Close()
		return nil, err
	}
	if d.apiFile, err = writeAPIFile(cfg.StateDir, "http://"+d.apiAddr.String(), secret); err != nil {
		log.Warnw("local clients will not find this daemon without --daemon", "state_dir", cfg.StateDir, "error", err)
	}
	return d, nil
}

// listen opens the API listener and, when configured, the health/metrics listener.
func (d *daemon) listen(reg *prometheus.Registry) error {
	h, err := rpc.NewHandler(d.cfg.RPC, d.svc, d.secret)
	if err != nil {
		return err
	}
	if h, err = withRemoteC2(h, d.cfg.RemoteC2, d.svc, d.secret); err != nil {
		return err
	}
	if d.cuzk, err = startCuzk(d.cfg.Cuzk, d.svc); err != nil {
		return &bindError{endpoint: "Curio (cuzk) endpoint", key: "[cuzk] address", addr: d.cfg.Cuzk.Listen, err: err}
	}
	ln, err := net.Listen("tcp", d.cfg.Listen)
	if err != nil {
		stopCuzk(d.cuzk)
		return &bindError{endpoint: "JSON-RPC API", key: "listen", addr: d.cfg.Listen, err: err}
	}
	d.api, d.apiAddr = &http.Server{Handler: h, ReadHeaderTimeout: 30 * time.Second}, ln.Addr()
	go d.api.Serve(ln)
	if d.cfg.MetricsListen == "" {
		return nil
	}
	mln, err := net.Listen("tcp", d.cfg.MetricsListen)
	if err != nil {
		d.api.Close()
		stopCuzk(d.cuzk)
		return &bindError{endpoint: "/metrics and /healthz", key: "metrics_listen", addr: d.cfg.MetricsListen, err: err}
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-d.draining:
			http.Error(w, "draining", http.StatusServiceUnavailable)
		default:
			fmt.Fprintln(w, "ok")
		}
	})
	d.metrics, d.metricAddr = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}, mln.Addr()
	go d.metrics.Serve(mln)
	return nil
}

// shutdown stops admitting jobs, lets running ones finish until the deadline (then
// cancels them), closes the API listener after in-flight calls have answered, and stops
// the pipeline and the metrics listener.
func (d *daemon) shutdown(timeout time.Duration) error {
	close(d.draining)
	d.apiFile.remove()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	drainErr := d.svc.Close(ctx)
	if drainErr != nil {
		log.Warnw("shutdown deadline reached; running jobs were cancelled", "error", drainErr)
	}
	// Callers waiting on jobs have their answers now; give them a moment to be written.
	hctx, hcancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer hcancel()
	stopCuzk(d.cuzk)
	apiErr := d.api.Shutdown(hctx)
	if apiErr != nil {
		d.api.Close()
	}
	pipeErr := d.pipe.Close()
	if d.metrics != nil {
		d.metrics.Close()
	}
	return errors.Join(apiErr, pipeErr)
}

// loadSecret reads (or creates) the token secret, making its directory if needed.
func loadSecret(path string) ([]byte, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, err
	}
	return rpc.LoadOrCreateSecret(path)
}

// officialNames maps every provable circuit id to its official parameter file name.
func officialNames() map[prover.CircuitID]string {
	names := map[prover.CircuitID]string{}
	for _, p := range types.SealProofs() {
		if p.Provable {
			names[prover.CircuitID(p.CircuitID)] = p.ParamFileName("params")
		}
	}
	for _, p := range types.PoStProofs() {
		names[prover.CircuitID(p.CircuitID)] = p.ParamFileName("params")
	}
	for _, p := range types.UpdateProofs() {
		names[prover.CircuitID(p.CircuitID)] = p.ParamFileName("params")
	}
	return names
}

// officialParams says whether a circuit's official file is present, and names it (as
// possibly a dev file when allowDev).
func officialParams(dir string, allowDev bool) (func(prover.CircuitID) error, func(prover.CircuitID) string) {
	names := officialNames()
	servable := func(id prover.CircuitID) error {
		name, ok := names[id]
		if !ok {
			return fmt.Errorf("no official parameter file for %s", id)
		}
		for _, f := range []string{name, strings.TrimSuffix(name, ".params") + ".vk"} {
			if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
				return fmt.Errorf("missing %s in %s", f, dir)
			}
		}
		return nil
	}
	kind := "official "
	if allowDev {
		kind = "official name, dev files allowed: "
	}
	provenance := func(id prover.CircuitID) string {
		return kind + filepath.Join(dir, names[id])
	}
	return servable, provenance
}

// officialVerifyingKeys reads each circuit's official .vk once: the Service verifies every
// proof against it with public inputs derived from the request, as the chain does.
func officialVerifyingKeys(dir string) func(prover.CircuitID) (*groth16.VerifyingKey, error) {
	var mu sync.Mutex
	cache := map[prover.CircuitID]*groth16.VerifyingKey{}
	names := map[prover.CircuitID]string{}
	for id, params := range officialNames() {
		names[id] = strings.TrimSuffix(params, ".params") + ".vk"
	}
	return func(id prover.CircuitID) (*groth16.VerifyingKey, error) {
		mu.Lock()
		defer mu.Unlock()
		if vk, ok := cache[id]; ok {
			return vk, nil
		}
		name, ok := names[id]
		if !ok {
			return nil, fmt.Errorf("no official verifying key for %s", id)
		}
		vk, err := groth16.ReadVerifyingKeyFile(filepath.Join(dir, name))
		if err != nil {
			return nil, err
		}
		cache[id] = vk
		return vk, nil
	}
}
