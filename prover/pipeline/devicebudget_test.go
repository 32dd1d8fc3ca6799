package pipeline

import (
	"errors"
	"strings"
	"testing"

	"github.com/snarkpipe/snarkpipe/prover/backend"
	"github.com/snarkpipe/snarkpipe/prover/srs"
	"github.com/snarkpipe/snarkpipe/prover/srs/srstest"
)

// withMemory is a CPU backend that reports device memory of its own, as a GPU does.
type withMemory struct {
	backend.Backend
	total uint64
	err   error
}

func (w withMemory) MemInfo() (free, total uint64, err error) { return w.total, w.total, w.err }

// deviceCapacity builds (without starting) a pipeline over be and returns its device's
// budget, or the error of New.
func deviceCapacity(t *testing.T, cfg Config, be backend.Backend) (int64, error) {
	t.Helper()
	p, err := New(cfg, Deps{Backends: []backend.Backend{be}, Params: srs.Dev{Cache: srstest.Cache(t)}})
	if err != nil {
		return 0, err
	}
	defer p.Close()
	return p.Status().Devices[0].Capacity, nil
}

// A device with memory of its own gets its memory less the headroom when DeviceBudget is
// 0, and never more than that (before, 0 meant the host budget, which on a large host
// admitted more keys than an H200 holds); a backend without memory gets the host budget.
func TestDeviceBudgetFollowsDeviceMemory(t *testing.T) {
	const gpuMem = 10 << 30
	cfg := testConfig()
	cfg.HostBudget, cfg.DeviceBudget = 40<<30, 0
	for _, tc := range []struct {
		name   string
		budget int64
		be     backend.Backend
		want   int64
	}{
		{"gpu, automatic", 0, withMemory{newCPU(t), gpuMem, nil}, gpuMem - gpuMem/8},
		{"H200, automatic", 0, withMemory{newCPU(t), 143 << 30, nil}, 143<<30 - DeviceHeadroom},
		{"gpu capped at 4 GiB, automatic", 0, withMemory{newCPU(t), 4 << 30, nil}, 4<<30 - 512<<20},
		{"gpu, smaller budget", 3 << 30, withMemory{newCPU(t), gpuMem, nil}, 3 << 30},
		{"gpu, budget above its memory", 20 << 30, withMemory{newCPU(t), gpuMem, nil}, gpuMem - gpuMem/8},
		{"cpu, automatic", 0, newCPU(t), 40 << 30},
		{"cpu, budget", 5 << 30, newCPU(t), 5 << 30},
	} {
		cfg.DeviceBudget = tc.budget
		got, err := deviceCapacity(t, cfg, tc.be)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got != tc.want {
			t.Errorf("%s: device budget %d, want %d", tc.name, got, tc.want)
		}
	}
	// Memory unknown (the host emulation of the CUDA library): the configured budget.
	cfg.DeviceBudget = 0
	if got, err := deviceCapacity(t, cfg, withMemory{newCPU(t), gpuMem, errors.New("no figures")}); err != nil || got != 40<<30 {
		t.Errorf("device memory unknown: budget %d, %v; want the host budget", got, err)
	}
	if _, err := deviceCapacity(t, cfg, withMemory{newCPU(t), 7, nil}); err == nil || !strings.Contains(err.Error(), "too few") {
		t.Errorf("a device of 7 bytes: New returned %v", err)
	}
}
