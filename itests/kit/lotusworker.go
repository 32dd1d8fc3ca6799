package kit

import (
	"net"
	"path/filepath"
	"strconv"
	"testing"
)

// StartWorker runs `snarkpipe worker run` against the miner with the given roles ("c2",
// "wdpost", "winpost", comma-separated) and waits until it serves. The worker listens on
// a port chosen now and kept across Restart, as an operator's fixed --listen is: lotus
// keeps a restarted worker's handle (same Session, persisted in the state directory) and
// reaches it again only at the same URL.
func (m *LotusMiner) StartWorker(t testing.TB, roles string, o DaemonOptions) *Daemon {
	t.Helper()
	if o.DataDir == "" {
		o.DataDir = t.TempDir()
	}
	o.Subcommand = []string{"worker", "run"}
	o.Args = append([]string{
		"--miner-api-info", m.APIInfo(), "--role", roles,
		"--listen", "127.0.0.1:" + strconv.Itoa(freePort(t)),
		"--state-dir", filepath.Join(o.DataDir, "lotus-worker"), "--hostname", "snarkpipe-itest",
	}, o.Args...)
	return StartDaemon(t, o)
}

// freePort is a loopback TCP port free right now.
func freePort(t testing.TB) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}
