package kit

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// daemonTOML is the configuration StartDaemon writes: loopback listeners on free ports,
// dev parameters from the shared test cache, recordings shared between the test
// processes of this machine (keyed by circuit content, written atomically), the token
// secret in the data directory, and Curio's cuzk endpoint on a unix socket in the data
// directory (a path, so it survives Restart and needs no port report).
type daemonTOML struct {
	devParamDir   string
	recordingsDir string
	secret        string
	hostBudget    int64
	synthWorkers  int // 0: the daemon's default
	cuzkSocket    string
	extra         string // DaemonOptions.ExtraConfig
}

func (c daemonTOML) render() string {
	var b strings.Builder
	fmt.Fprintf(&b, "listen = %q\n", "127.0.0.1:0")
	fmt.Fprintf(&b, "metrics_listen = %q\n", "127.0.0.1:0")
	fmt.Fprintf(&b, "dev = true\n")
	fmt.Fprintf(&b, "dev_param_dir = %q\n", c.devParamDir)
	fmt.Fprintf(&b, "recordings_dir = %q\n", c.recordingsDir)
	fmt.Fprintf(&b, "token_secret = %q\n", c.secret)
	fmt.Fprintf(&b, "state_dir = %q\n", filepath.Dir(c.secret))
	fmt.Fprintf(&b, "backend = %q\n", "auto")
	fmt.Fprintf(&b, "log_level = %q\n", "info")
	fmt.Fprintf(&b, "shutdown_timeout = %q\n", "20s")
	fmt.Fprintf(&b, "\n[pipeline]\n")
	fmt.Fprintf(&b, "host_budget = %d\n", c.hostBudget)
	fmt.Fprintf(&b, "safety_margin = %d\n", int64(1)<<30)
	if c.synthWorkers > 0 {
		fmt.Fprintf(&b, "synthesis_workers = %d\n", c.synthWorkers)
	}
	if c.cuzkSocket != "" {
		fmt.Fprintf(&b, "\n[cuzk]\n")
		fmt.Fprintf(&b, "enabled = true\n")
		fmt.Fprintf(&b, "address = %q\n", "unix://"+c.cuzkSocket)
	}
	if c.extra != "" {
		b.WriteString("\n" + c.extra + "\n")
	}
	return b.String()
}

func (c daemonTOML) write(dir string) (string, error) {
	path := filepath.Join(dir, "daemon.toml")
	return path, os.WriteFile(path, []byte(c.render()), 0o600)
}

// defaultHostMemory is the daemon's host budget when DaemonOptions.HostMemory is empty:
// room for the 2 KiB PoRep dev parameters (1.1 GB) and a few partitions in flight.
const defaultHostMemory = "6GiB"

// parseBytes reads "2GiB", "512MiB", "64KiB" or a plain byte count.
func parseBytes(s string) (int64, error) {
	units := []struct {
		suffix string
		mult   int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}, {"B", 1}}
	num, mult := strings.TrimSpace(s), int64(1)
	for _, u := range units {
		if strings.HasSuffix(num, u.suffix) {
			num, mult = strings.TrimSpace(strings.TrimSuffix(num, u.suffix)), u.mult
			break
		}
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n <= 0 || n > (1<<62)/mult {
		return 0, fmt.Errorf("kit: memory size %q: want a positive count with an optional GiB/MiB/KiB suffix", s)
	}
	return n * mult, nil
}
