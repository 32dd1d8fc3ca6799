package main

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/snarkpipe/snarkpipe/prover"
	"github.com/snarkpipe/snarkpipe/prover/backend/gpu"
	"github.com/snarkpipe/snarkpipe/prover/pipeline"
	"github.com/snarkpipe/snarkpipe/rpc"
	"github.com/snarkpipe/snarkpipe/rpc/cuzk"
	"github.com/snarkpipe/snarkpipe/rpc/remotec2"
	"github.com/snarkpipe/snarkpipe/sealer"
)

// envParamCache is upstream's variable for the official parameter directory; only cmd
// reads it (libraries read no environment variables).
const envParamCache = "FIL_PROOFS_PARAMETER_CACHE"

// defaultParamDir is upstream's default parameter directory.
const defaultParamDir = "/var/tmp/filecoin-proof-parameters"

// daemonConfig is the daemon's TOML file: its own settings plus each package's section.
type daemonConfig struct {
	Listen          string          `toml:"listen"`
	MetricsListen   string          `toml:"metrics_listen"`
	ParamDir        string          `toml:"param_dir"`
	DevParamDir     string          `toml:"dev_param_dir"`
	Dev             bool            `toml:"dev"`
	AllowDevParams  bool            `toml:"allow_dev_params"`
	RecordingsDir   string          `toml:"recordings_dir"`
	TokenSecret     string          `toml:"token_secret"`
	StateDir        string          `toml:"state_dir"`
	Backend         string          `toml:"backend"`
	GPUs            []int           `toml:"gpus"`
	GPUProofStreams int             `toml:"gpu_proof_streams"`
	GPUArith        string          `toml:"gpu_arith"`
	DeviceMemLimit  float64         `toml:"device_memory_limit"`
	LogLevel        string          `toml:"log_level"`
	ShutdownTimeout sealer.Duration `toml:"shutdown_timeout"`

	Sealer   sealer.Config   `toml:"sealer"`
	Pipeline pipeline.Config `toml:"pipeline"`
	RPC      rpc.Config      `toml:"rpc"`
	Cuzk     cuzk.Config     `toml:"cuzk"`
	RemoteC2 remotec2.Config `toml:"remote_c2"`
}

// configComments document every key of `snarkpipe config default`, by section.key
// (top-level keys by name alone). TestConfigDefaultEveryKeyCommented fails on a key
// without one. A comment says what the key does and what its default means; it does not
// repeat the section, and a machine-dependent default is written as 0 ("automatic"),
// never as this machine's value.
var configComments = map[string]string{
	"listen":              "Native JSON-RPC API (http://HOST:PORT/rpc/v0, also WebSocket; lotus RemoteCommit2 at /remote/commit2). Not 9820: that is the [cuzk] address Curio expects.",
	"metrics_listen":      "/healthz and /metrics (Prometheus), on their own listener. Empty: off.",
	"param_dir":           "Official parameter files. Empty: $FIL_PROOFS_PARAMETER_CACHE, else /var/tmp/filecoin-proof-parameters.",
	"dev_param_dir":       "Dev (untrusted-setup) parameters, used only with dev = true; every snarkpipe command shares them. Empty: user cache dir/snarkpipe/dev-params.",
	"dev":                 "Prove with dev parameters made on first use. Proofs are NOT valid on chain.",
	"allow_dev_params":    "Accept dev (untrusted-setup) files under the official names in param_dir, e.g. written by `snarkpipe bench --write-params`, to measure the official file path. Proofs are NOT valid on chain.",
	"recordings_dir":      "Recorded circuits (CSR matrices) and capacity hints. Empty: user cache dir/snarkpipe/recordings.",
	"token_secret":        "HS256 secret for API tokens; created on first start. Empty: user config dir/snarkpipe/token-secret.",
	"state_dir":           "Where the running daemon writes its api file and a read token, for `snarkpipe status` and other local clients. Empty: user config dir/snarkpipe.",
	"backend":             "auto (GPU if present, else CPU), gpu or cpu. Without a GPU, 32/64 GiB proofs are refused unless [sealer] allow_large_on_cpu.",
	"gpus":                "CUDA ordinals to use (empty: device 0).",
	"gpu_proof_streams":   "Partitions proved at once on each GPU, each on its own CUDA stream with its own proof buffers (16 GiB per 32 GiB PoRep partition). 0: the backend's default.",
	"gpu_arith":           "Field product of the GPU's NTTs: auto (FP64 where the card runs FP64 at 1/4 of FP32 or better: A100, H100/H200, B200; the integer product elsewhere), int or fp64.",
	"device_memory_limit": "Cap in GiB on the device memory snarkpipe allocates on each GPU, as on a card of that size (0: the card's memory). Circuits that cannot fit are refused at admission.",
	"log_level":           "debug, info, warn or error.",
	"shutdown_timeout":    "On SIGINT/SIGTERM: stop admitting, let running jobs finish for this long, then cancel them. A second signal exits at once.",

	"sealer.allow_large_on_cpu": "Accept 32/64 GiB proofs on the CPU backend (hours and ~50 GiB of memory each).",
	"sealer.skip_vanilla_check": "Skip the native check of vanilla proofs before proving. Benchmarks only: invalid input then costs a whole proof.",
	"sealer.winning_priority":   "Priority of Winning PoSt jobs: low, normal, high or critical (deadline: seconds).",
	"sealer.window_priority":    "Priority of Window PoSt jobs (deadline: minutes).",
	"sealer.seal_priority":      "Priority of SealCommit2 and SnapDeals jobs (deadline: hours).",
	"sealer.recent_jobs":        "Finished jobs remembered for status and for callers collecting results.",
	"sealer.result_ttl":         "How long a finished job's proofs stay retrievable.",
	"sealer.max_jobs":           "Jobs admitted and not finished at once; more are refused as temporarily unavailable.",

	"pipeline.host_budget":          "Host memory for resident parameters, recordings and partitions in flight, in bytes. 0: physical memory minus safety_margin.",
	"pipeline.safety_margin":        "Host memory left to the system and other processes when host_budget is 0, in bytes.",
	"pipeline.device_budget":        "Memory per GPU for resident keys and partitions in flight, in bytes. 0: the GPU's memory (or device_memory_limit) less 2 GiB, or less an eighth below 16 GiB (CPU backend: host_budget); a larger value is cut to that.",
	"pipeline.synthesis_workers":    "Partitions whose witness is built at once (each holds one working set). 0: automatic, a quarter of the CPUs.",
	"pipeline.critical_workers":     "Extra synthesis workers that take only critical work (Winning PoSt), so it never waits behind C2 partitions. 0: none.",
	"pipeline.eval_tasks":           "Parallelism of one host A·z, B·z, C·z evaluation or witness packing. 0: all CPUs.",
	"pipeline.handoff_depth":        "Synthesized partitions that may wait for a device worker (each holds its witness in memory).",
	"pipeline.workers_per_device":   "Device workers per GPU (one proves while the other prepares).",
	"pipeline.finalize_workers":     "Workers that verify and encode finished proofs.",
	"pipeline.max_batch":            "Partitions of one circuit a device worker may prove in one call. 1: no batching.",
	"pipeline.max_batch_wait":       "How long a device worker waits for a batch to fill when max_batch > 1.",
	"pipeline.recordings_max_bytes": "Disk budget of recordings_dir, in bytes. 0: unbounded.",
	"pipeline.pinned":               "Circuit ids never evicted once loaded (e.g. a Winning PoSt circuit).",
	"pipeline.preload_slots":        "A preload also allocates (and on a GPU page-locks) the circuit's pooled working-set slots, work its first proof would otherwise do (about 11 s at 32 GiB PoRep).",
	"pipeline.pin_keys":             "Page-lock the host copy of each proving key so that loading it onto a GPU (first use, residency swaps) runs at bus speed. Off until measured.",
	"pipeline.key_tier":             "Memory tier of the proving keys on GPUs: \"\" or auto (resident where the key fits beside the recorded circuit and the proof buffers, else the fewest key vectors kept in page-locked host memory and streamed to the GPU for every proof), resident, partial or streamed.",
	"pipeline.whole_witness":        "Hand a partition to the GPU only once its witness is filled. Off: PoSt partitions go to the GPU first, which starts on the sectors already filled.",
	"pipeline.idempotency_ttl":      "How long a succeeded job is returned again for the same idempotency key.",
	"pipeline.trace_events":         "Capacity of the per-stage timeline kept for diagnosis. 0: no timeline.",

	"rpc.max_request_bytes":    "Largest request body; the default has headroom for a 64 GiB C1 output in base64.",
	"rpc.unauthenticated_perm": "What a request without a token may do: empty (nothing) or read.",

	"cuzk.enabled":           "Serve Curio's cuzk gRPC protocol (Curio's [Cuzk] Address points here).",
	"cuzk.address":           "host:port, unix:///absolute/path or unix:relative/path; put the same value in Curio's [Cuzk] Address. A non-loopback host needs allow.",
	"cuzk.socket_mode":       "Unix socket file mode (decimal in TOML; 384 = 0600, owner only). Curio sends no credentials.",
	"cuzk.allow":             "Peers (IPs or CIDR prefixes) allowed besides loopback on a TCP address.",
	"cuzk.max_message_bytes": "gRPC message limit both ways, at least 256 MiB (Curio's).",
	"cuzk.job_ids":           "Curio request ids remembered for AwaitProof and CancelProof.",

	"remote_c2.max_body_bytes": "Largest lotus RemoteCommit2 body (POST <api>/remote/commit2?token=<write token>).",
}

// defaultListen is the native JSON-RPC API's address. It is not cuzk's 9820: Curio's
// documentation puts [Cuzk] Address there, and snarkpipe's cuzk endpoint takes it.
const defaultListen = "127.0.0.1:9830"

func defaultDaemonConfig() daemonConfig {
	cfg := daemonConfig{
		Listen:          defaultListen,
		MetricsListen:   "127.0.0.1:9821",
		Backend:         "auto",
		GPUArith:        string(gpu.ArithAuto),
		LogLevel:        "info",
		ShutdownTimeout: sealer.Duration(5 * time.Minute),
		Sealer:          sealer.DefaultConfig(),
		Pipeline:        pipeline.DefaultConfig(),
		RPC:             rpc.DefaultConfig(),
		Cuzk:            cuzk.DefaultConfig(),
		RemoteC2:        remotec2.DefaultConfig(),
	}
	// Empty, not nil: the TOML encoder leaves nil lists out, and config default shows
	// every key.
	cfg.GPUs, cfg.Pipeline.Pinned, cfg.Cuzk.Allow = []int{}, []prover.CircuitID{}, []string{}
	return cfg
}

// validate checks the daemon's own keys and every section.
func (c *daemonConfig) validate() error {
	var errs []error
	if c.Listen == "" {
		errs = append(errs, errors.New("listen is empty"))
	}
	if c.Cuzk.Enabled && sameFixedAddress(c.Cuzk.Listen, c.Listen) {
		errs = append(errs, fmt.Errorf("listen and [cuzk] address are both %s: give the JSON-RPC API another port (Curio expects cuzk at %s)", c.Listen, cuzk.DefaultAddress))
	}
	if sameFixedAddress(c.MetricsListen, c.Listen) {
		errs = append(errs, fmt.Errorf("listen and metrics_listen are both %s", c.Listen))
	}
	switch c.Backend {
	case "auto", "gpu", "cpu":
	default:
		errs = append(errs, fmt.Errorf("backend %q: want auto, gpu or cpu", c.Backend))
	}
	switch c.LogLevel {
	case "debug", "info", "warn", "error":
	default:
		errs = append(errs, fmt.Errorf("log_level %q: want debug, info, warn or error", c.LogLevel))
	}
	if c.ShutdownTimeout < 0 {
		errs = append(errs, errors.New("shutdown_timeout is negative"))
	}
	if c.GPUProofStreams < 0 || c.GPUProofStreams > gpu.MaxProofStreams {
		errs = append(errs, fmt.Errorf("gpu_proof_streams %d: want 0 to %d", c.GPUProofStreams, gpu.MaxProofStreams))
	}
	if _, err := gpu.ParseArith(c.GPUArith); err != nil {
		errs = append(errs, fmt.Errorf("gpu_arith: %w", err))
	}
	if c.DeviceMemLimit < 0 {
		errs = append(errs, fmt.Errorf("device_memory_limit %v is negative", c.DeviceMemLimit))
	}
	for _, g := range c.GPUs {
		if g < 0 {
			errs = append(errs, fmt.Errorf("gpus: negative ordinal %d", g))
		}
	}
	for name, err := range map[string]error{"sealer": c.Sealer.Validate(), "pipeline": c.Pipeline.Validate(), "rpc": c.RPC.Validate(), "cuzk": c.Cuzk.Validate(), "remote_c2": c.RemoteC2.Validate()} {
		if err != nil {
			errs = append(errs, fmt.Errorf("[%s] %w", name, err))
		}
	}
	return errors.Join(errs...)
}

// sameFixedAddress says whether two listeners would bind the same address (port 0 picks
// a free port each time: never a clash).
func sameFixedAddress(a, b string) bool {
	_, port, err := net.SplitHostPort(a)
	return err == nil && a == b && port != "0"
}

// loadDaemonConfig reads a TOML file over the defaults; unknown keys are errors (a typo
// must not silently leave a default in place).
func loadDaemonConfig(path string) (daemonConfig, error) {
	cfg := defaultDaemonConfig()
	if path == "" {
		return cfg, nil
	}
	md, err := toml.DecodeFile(path, &cfg)
	if err != nil {
		return cfg, fmt.Errorf("config %s: %w", path, err)
	}
	if und := md.Undecoded(); len(und) > 0 {
		keys := make([]string, len(und))
		for i, k := range und {
			keys[i] = k.String()
		}
		return cfg, fmt.Errorf("config %s: unknown keys %s", path, strings.Join(keys, ", "))
	}
	return cfg, nil
}

// resolvePaths fills the empty directories with their defaults (environment read here).
func (c *daemonConfig) resolvePaths() error {
	if c.ParamDir == "" {
		c.ParamDir = paramDirFromEnv()
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	if c.DevParamDir == "" {
		c.DevParamDir = defaultDevParamDir()
	}
	if c.RecordingsDir == "" {
		c.RecordingsDir = filepath.Join(cache, "snarkpipe", "recordings")
	}
	if c.TokenSecret == "" {
		conf, err := os.UserConfigDir()
		if err != nil {
			conf = cache
		}
		c.TokenSecret = filepath.Join(conf, "snarkpipe", "token-secret")
	}
	if c.StateDir == "" {
		conf, err := os.UserConfigDir()
		if err != nil {
			conf = cache
		}
		c.StateDir = filepath.Join(conf, "snarkpipe")
	}
	if c.Pipeline.RecordingsDir == "" {
		c.Pipeline.RecordingsDir = c.RecordingsDir
	}
	return nil
}

// paramDirFromEnv is upstream's rule: $FIL_PROOFS_PARAMETER_CACHE, else the default.
func paramDirFromEnv() string {
	if d := os.Getenv(envParamCache); d != "" {
		return d
	}
	return defaultParamDir
}

// commentedDefault renders the default configuration with a comment above each
// documented key.
func commentedDefault() (string, error) {
	var buf bytes.Buffer
	buf.WriteString("# snarkpipe daemon configuration (snarkpipe daemon --config FILE).\n# Every key is optional; shown are the defaults.\n\n")
	var body bytes.Buffer
	if err := toml.NewEncoder(&body).Encode(defaultDaemonConfig()); err != nil {
		return "", err
	}
	section := ""
	for _, line := range strings.Split(strings.TrimRight(body.String(), "\n"), "\n") {
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "[") {
			section = strings.Trim(trimmed, "[]") + "."
		}
		key, _, ok := strings.Cut(trimmed, " =")
		if c, known := configComments[section+key]; ok && known {
			buf.WriteString(strings.Repeat(" ", len(line)-len(strings.TrimLeft(line, " "))) + "# " + c + "\n")
		}
		buf.WriteString(line + "\n")
	}
	return buf.String(), nil
}
