package lotus_test

import (
	"testing"
	"time"

	"github.com/filecoin-project/go-state-types/abi"
	"github.com/filecoin-project/lotus/storage/sealer/sealtasks"
	"github.com/filecoin-project/lotus/storage/sealer/storiface"

	"github.com/snarkpipe/snarkpipe/rpc/lotus"
)

// minerAdmission replays lotus-miner's admission check (storage/sealer/sched_resources.go,
// ActiveResources.CanHandleRequest, lotus v1.36.3) for tasks of one type on one worker.
type minerAdmission struct {
	memUsedMin, memUsedMax uint64
	gpuUsed                float64
	cpuUse                 uint64
	tasks                  int
}

func (a *minerAdmission) canHandle(need storiface.Resources, info storiface.WorkerInfo) bool {
	if need.MaxConcurrent > 0 && a.tasks >= need.MaxConcurrent {
		return false
	}
	if info.IgnoreResources {
		return true
	}
	res := info.Resources
	if need.MinMemory+need.BaseMinMemory > res.MemPhysical-a.memUsedMin {
		return false
	}
	vmemUsed := max(a.memUsedMax, res.MemUsed+res.MemSwapUsed)
	if need.MaxMemory+need.BaseMinMemory > res.MemPhysical+res.MemSwap-vmemUsed {
		return false
	}
	if a.cpuUse+need.Threads(res.CPUs, len(res.GPUs)) > res.CPUs {
		return false
	}
	if len(res.GPUs) > 0 && need.GPUUtilization > 0 && a.gpuUsed+need.GPUUtilization > float64(len(res.GPUs)) {
		return false
	}
	return true
}

// add is ActiveResources.Add.
func (a *minerAdmission) add(r storiface.Resources, res storiface.WorkerResources) {
	a.gpuUsed += r.GPUUtilization
	a.cpuUse += r.Threads(res.CPUs, len(res.GPUs))
	a.memUsedMin += r.MinMemory
	a.memUsedMax += r.MaxMemory
	a.tasks++
}

// admitted counts how many tasks the miner starts on the worker before refusing (capped).
func admitted(spt abi.RegisteredSealProof, tt sealtasks.TaskType, info storiface.WorkerInfo) int {
	var a minerAdmission
	need := info.Resources.ResourceSpec(spt, tt)
	for a.tasks < 64 && a.canHandle(need, info) {
		a.add(need, info.Resources)
	}
	return a.tasks
}

// h200 is the host of the acceptance criterion: one H200, 128 GiB of RAM (60 GiB of it
// taken by resident parameters and the OS), no swap, 16 cores.
func h200(info storiface.WorkerInfo, cpus uint64) storiface.WorkerInfo {
	info.Resources.MemPhysical = 128 << 30
	info.Resources.MemUsed = 60 << 30
	info.Resources.MemSwap, info.Resources.MemSwapUsed = 0, 0
	info.Resources.CPUs = cpus
	info.Resources.GPUs = []string{"NVIDIA H200"}
	return info
}

// TestMinerAdmitsH200 checks our Info against lotus' ResourceTable for the 32 GiB proof
// types: lotus-miner's admission must start MaxConcurrent tasks of each role on an H200 with
// 128 GiB, where the default table (what a plain lotus-worker reports) would start no C2
// and no Window PoSt at all (they ask for 182 and 128 GiB of RAM+swap).
func TestMinerAdmitsH200(t *testing.T) {
	m := newTestMiner(t)
	cfg := testConfig()
	cfg.C2MaxConcurrent, cfg.PoStMaxConcurrent = 3, 2
	w, _ := startWorker(t, cfg, t.TempDir(), &fakeProver{}, m)
	ctx := testCtx(t, 10*time.Second)
	for _, role := range lotus.AllRoles {
		info, err := dialWorker(t, w.url(role), minerToken).Info(ctx)
		if err != nil {
			t.Fatal(err)
		}
		small := h200(info, 2) // fewer cores than MaxConcurrent: cores must not limit us
		info = h200(info, 16)
		want := cfg.PoStMaxConcurrent
		if role == lotus.RoleC2 {
			want = cfg.C2MaxConcurrent
		}
		tt := role.TaskType()
		checked := 0
		for spt := range storiface.ResourceTable[tt] {
			if ss, err := spt.SectorSize(); err != nil || ss != 32<<30 {
				continue
			}
			checked++
			if n := admitted(spt, tt, info); n != want {
				t.Errorf("%s, seal proof %d: miner admits %d tasks, want %d", role, spt, n, want)
			}
			if n := admitted(spt, tt, small); n != want {
				t.Errorf("%s, seal proof %d: miner admits %d tasks on 2 cores, want %d", role, spt, n, want)
			}
			plain := info
			plain.Resources.Resources = nil
			n := admitted(spt, tt, plain)
			if role != lotus.RoleWinning && n != 0 {
				t.Errorf("%s, seal proof %d: default table admits %d tasks on 128 GiB; the override would not be needed", role, spt, n)
			}
		}
		if checked < 3 {
			t.Errorf("%s: %d 32 GiB seal proof types in lotus' table, want V1, V1_1 and synthetic", role, checked)
		}
	}
}
