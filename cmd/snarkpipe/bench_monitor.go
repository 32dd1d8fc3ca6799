package main

import (
	"bufio"
	"bytes"
	"os"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/snarkpipe/snarkpipe/prover/backend"
)

// memPeaks are the highest memory figures seen: host resident set and, per GPU, device
// memory in use (total − free: every process and the library's cached pool included).
type memPeaks struct {
	HostRSS   uint64   `json:"host_rss_bytes"`
	GPUUsed   []uint64 `json:"gpu_used_bytes,omitempty"`
	GPUTotal  []uint64 `json:"gpu_total_bytes,omitempty"`
	GPUErrors []string `json:"gpu_errors,omitempty"`
}

// memMonitor polls the host RSS and each GPU's used memory every interval and keeps the
// peaks: over the whole run and since the last resetPhase (the proving phase).
type memMonitor struct {
	gpus     []backend.MemoryReporter
	interval time.Duration

	mu          sync.Mutex
	run, phase  memPeaks
	gpuErr      []error
	stop, ended chan struct{}
}

func newMemMonitor(gpus []backend.MemoryReporter, interval time.Duration) *memMonitor {
	m := &memMonitor{gpus: gpus, interval: interval, gpuErr: make([]error, len(gpus)),
		stop: make(chan struct{}), ended: make(chan struct{})}
	for _, p := range []*memPeaks{&m.run, &m.phase} {
		p.GPUUsed, p.GPUTotal = make([]uint64, len(gpus)), make([]uint64, len(gpus))
	}
	m.sample()
	go m.loop()
	return m
}

func (m *memMonitor) loop() {
	defer close(m.ended)
	t := time.NewTicker(m.interval)
	defer t.Stop()
	for {
		select {
		case <-m.stop:
			m.sample()
			return
		case <-t.C:
			m.sample()
		}
	}
}

// sample reads every figure once and raises the peaks.
func (m *memMonitor) sample() {
	rss := currentRSS()
	type reading struct {
		used, total uint64
		err         error
	}
	readings := make([]reading, len(m.gpus))
	for i, g := range m.gpus {
		free, total, err := g.MemInfo()
		readings[i] = reading{total - free, total, err}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, p := range []*memPeaks{&m.run, &m.phase} {
		p.HostRSS = max(p.HostRSS, rss)
		for i, r := range readings {
			if r.err != nil {
				continue
			}
			p.GPUUsed[i] = max(p.GPUUsed[i], r.used)
			p.GPUTotal[i] = r.total
		}
	}
	for i, r := range readings {
		if r.err != nil && m.gpuErr[i] == nil {
			m.gpuErr[i] = r.err
		}
	}
}

// resetPhase starts a new phase: its peaks count from the current values.
func (m *memMonitor) resetPhase() {
	m.mu.Lock()
	m.phase.HostRSS = 0
	clear(m.phase.GPUUsed)
	m.mu.Unlock()
	m.sample()
}

// peaks returns the run's and the phase's peaks so far. The run's host peak is the
// kernel's high-water mark when it is higher than any sample (short spikes between polls).
func (m *memMonitor) peaks() (run, phase memPeaks) {
	m.sample()
	m.mu.Lock()
	defer m.mu.Unlock()
	run, phase = m.run.clone(), m.phase.clone()
	run.HostRSS = max(run.HostRSS, peakRSS())
	for i, err := range m.gpuErr {
		if err != nil {
			run.GPUErrors = append(run.GPUErrors, "gpu "+strconv.Itoa(i)+": "+err.Error())
		}
	}
	phase.GPUErrors = run.GPUErrors
	return run, phase
}

// close stops the polling.
func (m *memMonitor) close() {
	close(m.stop)
	<-m.ended
}

func (p memPeaks) clone() memPeaks {
	p.GPUUsed = append([]uint64(nil), p.GPUUsed...)
	p.GPUTotal = append([]uint64(nil), p.GPUTotal...)
	p.GPUErrors = append([]string(nil), p.GPUErrors...)
	return p
}

// currentRSS is the process's resident set now (Linux /proc/self/status VmRSS; 0 elsewhere).
func currentRSS() uint64 { return procStatusBytes("VmRSS:") }

// peakRSS is the process's resident-set high-water mark: VmHWM, else getrusage's maxrss.
func peakRSS() uint64 {
	if v := procStatusBytes("VmHWM:"); v > 0 {
		return v
	}
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return uint64(ru.Maxrss) << 10 // KiB on Linux
}

// procStatusBytes reads one "Key:   N kB" line of /proc/self/status.
func procStatusBytes(key string) uint64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		line := sc.Bytes()
		if !bytes.HasPrefix(line, []byte(key)) {
			continue
		}
		fields := bytes.Fields(line[len(key):])
		if len(fields) == 0 {
			return 0
		}
		v, err := strconv.ParseUint(string(fields[0]), 10, 64)
		if err != nil {
			return 0
		}
		return v << 10 // kB
	}
	return 0
}
