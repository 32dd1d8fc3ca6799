package kit

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"sync"
	"syscall"
	"time"
)

// process is one run of the snarkpipe binary: its output goes to a log file and is
// scanned line by line for the lines that report what it bound.
type process struct {
	cmd     *exec.Cmd
	logPath string
	log     *os.File
	exited  chan struct{} // closed when Wait returned
	waitErr error

	mu      sync.Mutex
	partial []byte
	apiAddr string            // from the "JSON-RPC API http://ADDR/rpc/v0" line
	metrics string            // from the "health, metrics http://ADDR/healthz" line
	roles   map[string]string // lotus worker role → URL, from the "role NAME URL" lines
	ready   chan struct{}     // closed once apiAddr is known
}

// apiLine matches the daemon's and the worker's API report line:
// "  JSON-RPC API      http://127.0.0.1:41235/rpc/v0 (listen)" and
// "snarkpipe worker: native API http://127.0.0.1:41235/rpc/v0, …".
var apiLine = regexp.MustCompile(`^(?:\s+JSON-RPC API\s+|snarkpipe worker: native API )http://([^/\s]+)/rpc/v0`)

// metricsLine matches the daemon's "  health, metrics   http://127.0.0.1:41236/healthz, /metrics …".
var metricsLine = regexp.MustCompile(`^\s+health, metrics\s+http://([^/\s]+)/healthz`)

// roleLine matches the worker's "  role c2      http://127.0.0.1:3456/c2/rpc/v0 (session …" lines.
var roleLine = regexp.MustCompile(`^\s+role (\S+)\s+(http://\S+/rpc/v0) `)

func startProcess(bin, dir, logPath string, args, env []string) (*process, error) {
	f, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	p := &process{logPath: logPath, log: f, exited: make(chan struct{}), ready: make(chan struct{}), roles: map[string]string{}}
	p.cmd = exec.Command(bin, args...)
	p.cmd.Dir = dir
	p.cmd.Env = append(os.Environ(), env...)
	p.cmd.Stdout, p.cmd.Stderr = p, p
	if err := p.cmd.Start(); err != nil {
		f.Close()
		return nil, fmt.Errorf("kit: starting %s: %w", bin, err)
	}
	go func() {
		p.waitErr = p.cmd.Wait()
		f.Close()
		close(p.exited)
	}()
	return p, nil
}

// Write keeps the output in the log file and scans complete lines.
func (p *process) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.log.Write(b)
	p.partial = append(p.partial, b...)
	for {
		i := bytes.IndexByte(p.partial, '\n')
		if i < 0 {
			break
		}
		p.scan(string(p.partial[:i]))
		p.partial = p.partial[i+1:]
	}
	return len(b), nil
}

func (p *process) scan(line string) {
	if m := apiLine.FindStringSubmatch(line); m != nil && p.apiAddr == "" {
		p.apiAddr = m[1]
		close(p.ready)
	}
	if m := metricsLine.FindStringSubmatch(line); m != nil {
		p.metrics = m[1]
	}
	if m := roleLine.FindStringSubmatch(line); m != nil {
		p.roles[m[1]] = m[2]
	}
}

// waitReady waits for the API line; an exit or the deadline first is an error.
func (p *process) waitReady(d time.Duration) (string, error) {
	select {
	case <-p.ready:
		p.mu.Lock()
		defer p.mu.Unlock()
		return p.apiAddr, nil
	case <-p.exited:
		return "", fmt.Errorf("kit: snarkpipe exited before it was ready: %v", p.waitErr)
	case <-time.After(d):
		return "", fmt.Errorf("kit: snarkpipe not ready after %v", d)
	}
}

func (p *process) role(name string) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.roles[name]
}

func (p *process) metricsAddr() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.metrics
}

func (p *process) running() bool {
	select {
	case <-p.exited:
		return false
	default:
		return true
	}
}

// kill sends SIGKILL and waits for the exit.
func (p *process) kill() {
	if p.running() {
		p.cmd.Process.Signal(syscall.SIGKILL)
	}
	<-p.exited
}

// stop sends SIGTERM (the daemon drains) and SIGKILL after grace.
func (p *process) stop(grace time.Duration) error {
	if !p.running() {
		return nil
	}
	p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.exited:
		return nil
	case <-time.After(grace):
		p.kill()
		return errors.New("kit: snarkpipe did not stop on SIGTERM; killed")
	}
}

// tail is the end of the log file (at most n bytes).
func (p *process) tail(n int64) string {
	b, err := os.ReadFile(p.logPath)
	if err != nil {
		return fmt.Sprintf("(log %s: %v)", p.logPath, err)
	}
	if int64(len(b)) > n {
		b = append([]byte("…"), b[int64(len(b))-n:]...)
	}
	return string(b)
}
