package kit

import (
	"github.com/filecoin-project/go-state-types/abi"
	"github.com/filecoin-project/lotus/storage/sealer/sealtasks"
	"github.com/filecoin-project/lotus/storage/sealer/storiface"
)

// activeResources is lotus's ActiveResources (storage/sealer/sched_resources.go, which
// imports filecoin-ffi and so is restated here): what the tasks running on a worker hold
// in the miner's accounting. A task is admitted only if CanHandleRequest says so with the
// worker's reported Info, and holds its resources until it ends (for an async call: until
// its Return arrives).
type activeResources struct {
	tasks                  map[sealtasks.SealTaskType]int
	memUsedMin, memUsedMax uint64
	cpuUse                 uint64
	gpuUsed                float64
}

// canHandle is lotus's CanHandleRequest for a task with no scheduling id.
func (a *activeResources) canHandle(tt sealtasks.SealTaskType, need storiface.Resources, info storiface.WorkerInfo) bool {
	if need.MaxConcurrent > 0 && a.tasks[tt] >= need.MaxConcurrent {
		return false
	}
	if info.IgnoreResources {
		return true
	}
	res := info.Resources
	if need.MinMemory+need.BaseMinMemory > res.MemPhysical-min(a.memUsedMin, res.MemPhysical) {
		return false
	}
	vmemUsed := max(a.memUsedMax, res.MemUsed+res.MemSwapUsed)
	if total := res.MemPhysical + res.MemSwap; need.MaxMemory+need.BaseMinMemory > total-min(vmemUsed, total) {
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

func (a *activeResources) add(tt sealtasks.SealTaskType, wr storiface.WorkerResources, r storiface.Resources) {
	if a.tasks == nil {
		a.tasks = map[sealtasks.SealTaskType]int{}
	}
	if r.GPUUtilization > 0 {
		a.gpuUsed += r.GPUUtilization
	}
	a.cpuUse += r.Threads(wr.CPUs, len(wr.GPUs))
	a.memUsedMin += r.MinMemory
	a.memUsedMax += r.MaxMemory
	a.tasks[tt]++
}

func (a *activeResources) free(tt sealtasks.SealTaskType, wr storiface.WorkerResources, r storiface.Resources) {
	if r.GPUUtilization > 0 {
		a.gpuUsed -= r.GPUUtilization
	}
	a.cpuUse -= r.Threads(wr.CPUs, len(wr.GPUs))
	a.memUsedMin -= r.MinMemory
	a.memUsedMax -= r.MaxMemory
	a.tasks[tt]--
}

// reserve admits a task of type task for proof type spt on w if lotus would, and returns
// the function that frees it. Called with m.mu held.
func (w *minerWorker) reserve(task sealtasks.TaskType, spt abi.RegisteredSealProof) (release func(), ok bool) {
	tt := task.SealTask(spt)
	need := w.info.Resources.ResourceSpec(spt, task)
	if !w.active.canHandle(tt, need, w.info) {
		return nil, false
	}
	w.active.add(tt, w.info.Resources, need)
	return func() { w.active.free(tt, w.info.Resources, need) }, true
}
