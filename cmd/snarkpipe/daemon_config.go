package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

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
	RecordingsDir   string          `toml:"recordings_dir"`
	TokenSecret     string          `toml:"token_secret"`
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

// configComments document the keys in `snarkpipe config default`.
var configComments = map[string]string{
	"listen":              "JSON-RPC API (http://HOST:PORT/rpc/v0, also WebSocket).",
	"metrics_listen":      "/healthz and /metrics (Prometheus), on their own listener. Empty: off.",
	"param_dir":           "Official parameter files. Empty: $FIL_PROOFS_PARAMETER_CACHE, else /var/tmp/filecoin-proof-parameters.",
	"dev_param_dir":       "Dev (untrusted-setup) parameters, used only with dev = true. Empty: user cache dir/snarkpipe/dev-params.",
	"dev":                 "Prove with dev parameters made on first use. Proofs are NOT valid on chain.",
	"recordings_dir":      "Recorded circuits (CSR matrices) and capacity hints. Empty: user cache dir/snarkpipe/recordings.",
	"token_secret":        "HS256 secret for API tokens; created on first start. Empty: user config dir/snarkpipe/token-secret.",
	"backend":             "auto (GPU if present, else CPU), gpu or cpu. Without a GPU, 32/64 GiB proofs are refused unless sealer.allow_large_on_cpu.",
	"gpus":                "CUDA ordinals to use (empty: device 0).",
	"gpu_proof_streams":   "Partitions proved at once on each GPU, each on its own CUDA stream with its own proof buffers (16 GiB per 32 GiB PoRep partition). 0: the backend's default.",
	"gpu_arith":           "Field product of the GPU's NTTs: auto (FP64 where the card runs FP64 at 1/4 of FP32 or better: A100, H100/H200, B200; the integer product elsewhere), int or fp64.",
	"device_memory_limit": "Cap in GiB on the device memory snarkpipe allocates on each GPU, as on a card of that size (0: the card's memory). Circuits that cannot fit are refused at admission.",
	"log_level":           "debug, info, warn or error.",
	"shutdown_timeout":    "On SIGINT/SIGTERM: stop admitting, let running jobs finish for this long, then cancel them. A second signal exits at once.",
	"allow_large_on_cpu":  "Accept 32/64 GiB proofs on the CPU backend (hours and ~50 GiB of memory each).",
	"host_budget":         "[pipeline] Host memory for resident parameters, recordings and partitions in flight, in bytes. 0: physical memory minus safety_margin.",
	"device_budget":       "[pipeline] Memory per GPU for resident keys and partitions in flight, in bytes. 0: the GPU's memory less 2 GiB (CPU backend: host_budget); a larger value is cut to that.",
	"synthesis_workers":   "[pipeline] Partitions whose witness is built at once (each holds one working set). Default: a quarter of the CPUs.",
	"critical_workers":    "[pipeline] Extra synthesis workers that take only critical work (Winning PoSt), so it never waits behind C2 partitions. 0: none.",
	"pinned":              "[pipeline] Circuit ids never evicted once loaded (e.g. a Winning PoSt circuit).",
	"preload_slots":       "[pipeline] A preload also allocates (and on a GPU page-locks) the circuit's pooled working-set slots, work its first proof would otherwise do (about 11 s at 32 GiB PoRep).",
	"pin_keys":            "[pipeline] Page-lock the host copy of each proving key so that loading it onto a GPU (first use, residency swaps) runs at bus speed. Off until measured.",
	"whole_witness":       "[pipeline] Hand a partition to the GPU only once its witness is filled. Off: PoSt partitions go to the GPU first, which starts on the sectors already filled.",
	"max_request_bytes":   "Largest request body; the default has headroom for a 64 GiB C1 output in base64.",
	"address":             "[cuzk] Curio's gRPC endpoint, when enabled: unix:///path or host:port (non-loopback needs allow). Put the same value in Curio's [Cuzk] Address.",
	"socket_mode":         "[cuzk] Unix socket file mode (decimal in TOML; 384 = 0600, owner only). Curio sends no credentials.",
	"allow":               "[cuzk] Peers (IPs or CIDR prefixes) allowed besides loopback on a TCP address.",
	"max_message_bytes":   "[cuzk] gRPC message limit both ways, at least 256 MiB (Curio's).",
	"max_body_bytes":      "[remote_c2] Largest lotus RemoteCommit2 body (POST <api>/remote/commit2?token=<write token>).",
}

func defaultDaemonConfig() daemonConfig {
	return daemonConfig{
		Listen:          "127.0.0.1:9820",
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
}

// validate checks the daemon's own keys and every section.
func (c *daemonConfig) validate() error {
	var errs []error
	if c.Listen == "" {
		errs = append(errs, errors.New("listen is empty"))
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
		c.DevParamDir = filepath.Join(cache, "snarkpipe", "dev-params")
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
	for _, line := range strings.Split(strings.TrimRight(body.String(), "\n"), "\n") {
		key, _, ok := strings.Cut(strings.TrimSpace(line), " =")
		if c, known := configComments[key]; ok && known {
			buf.WriteString(strings.Repeat(" ", len(line)-len(strings.TrimLeft(line, " "))) + "# " + c + "\n")
		}
		buf.WriteString(line + "\n")
	}
	return buf.String(), nil
}
