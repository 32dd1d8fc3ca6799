package main

import (
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/snarkpipe/snarkpipe/prover/backend"
)

// fakeGPU reports a settable used amount of 100 bytes of memory, or an error.
type fakeGPU struct {
	mu   sync.Mutex
	used uint64
	err  error
}

func (g *fakeGPU) set(used uint64) { g.mu.Lock(); g.used = used; g.mu.Unlock() }

func (g *fakeGPU) MemInfo() (uint64, uint64, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return 100 - g.used, 100, g.err
}

// TestMemMonitorPeaks: the run keeps the highest GPU use seen, a phase only what it saw
// after its reset; a GPU that cannot report is named, not counted as zero use; host RSS
// is measured.
func TestMemMonitorPeaks(t *testing.T) {
	g, bad := &fakeGPU{used: 70}, &fakeGPU{err: errors.New("no info")}
	m := newMemMonitor([]backend.MemoryReporter{g, bad}, time.Hour) // samples only when asked
	defer m.close()
	g.set(20)
	m.resetPhase()
	g.set(40)
	run, phase := m.peaks()
	if run.GPUUsed[0] != 70 || phase.GPUUsed[0] != 40 || run.GPUTotal[0] != 100 {
		t.Fatalf("run %+v, phase %+v: want run peak 70, phase peak 40, total 100", run, phase)
	}
	if run.GPUUsed[1] != 0 || len(run.GPUErrors) != 1 || len(phase.GPUErrors) != 1 {
		t.Fatalf("failing GPU: run %+v", run)
	}
	if run.HostRSS == 0 || phase.HostRSS == 0 || phase.HostRSS > run.HostRSS {
		t.Fatalf("host RSS run %d, phase %d", run.HostRSS, phase.HostRSS)
	}
}
