package lotus

import (
	"bufio"
	"bytes"
	"os"
	"runtime"
	"strconv"

	"github.com/filecoin-project/go-state-types/abi"
	"github.com/filecoin-project/lotus/storage/sealer/sealtasks"
	"github.com/filecoin-project/lotus/storage/sealer/storiface"
)

// How the miner schedules work to us (spec/integration.md §2.8).
//
// lotus-miner admits a task on a worker by comparing its ResourceTable entry with the
// worker's Info. That table models lotus-worker, which starts each proof from scratch in
// its own memory: a 32 GiB C2 asks for 30 GiB + 32 GiB base of RAM, 150 GiB + 32 GiB of
// RAM+swap and one whole GPU, so a 128 GiB H200 host without swap would never be given a
// C2 (182 GiB > 128 GiB). snarkpipe is different: parameters stay resident and partitions
// stream through a memory budget that the service enforces itself, and its queue orders
// and batches work better when it sees several jobs at once.
//
// So Info sends a Resources override for the role's task type and every seal proof type:
// no memory, no GPU share, no CPU threads (Threads() is 0 for MaxParallelism 0), so that
// MaxConcurrent, the number of calls the miner keeps in flight on this worker, is the only
// limit whatever the host's core count. We keep IgnoreResources false:
// lotus documents it as a local-worker testing switch, while the override table is the
// documented per-worker mechanism (lotus-worker fills it from C2_32G_MAX_CONCURRENT-style
// variables), and MaxConcurrent is honoured either way.

// resourceOverride is what one call of the role costs in the miner's accounting.
func resourceOverride(maxConcurrent int) storiface.Resources {
	return storiface.Resources{
		MinMemory:      0,
		MaxMemory:      0,
		GPUUtilization: 0,
		MaxParallelism: 0,
		BaseMinMemory:  0,
		MaxConcurrent:  maxConcurrent,
	}
}

// resourceTable overrides the miner's table for each of the role's task types (c2: C2 and
// ProveReplicaUpdate2, whose lotus entry is a copy of C2's), for every seal proof type
// lotus knows for it.
func (w *roleWorker) resourceTable() map[sealtasks.TaskType]map[abi.RegisteredSealProof]storiface.Resources {
	limit := w.cfg.PoStMaxConcurrent
	if w.role == RoleC2 {
		limit = w.cfg.C2MaxConcurrent
	}
	out := map[sealtasks.TaskType]map[abi.RegisteredSealProof]storiface.Resources{}
	for _, tt := range w.role.TaskTypes() {
		per := map[abi.RegisteredSealProof]storiface.Resources{}
		for spt := range storiface.ResourceTable[tt] {
			per[spt] = resourceOverride(limit)
		}
		out[tt] = per
	}
	return out
}

func (w *roleWorker) info() (storiface.WorkerInfo, error) {
	mem := readMeminfo()
	return storiface.WorkerInfo{
		Hostname: w.hostname(),
		Resources: storiface.WorkerResources{
			MemPhysical: mem["MemTotal"],
			MemUsed:     sub(mem["MemTotal"], mem["MemAvailable"]),
			MemSwap:     mem["SwapTotal"],
			MemSwapUsed: sub(mem["SwapTotal"], mem["SwapFree"]),
			CPUs:        uint64(runtime.NumCPU()),
			GPUs:        append([]string{}, w.cfg.GPUs...),
			Resources:   w.resourceTable(),
		},
	}, nil
}

func (w *roleWorker) hostname() string {
	if w.cfg.Hostname != "" {
		return w.cfg.Hostname
	}
	h, err := os.Hostname()
	if err != nil {
		return "snarkpipe"
	}
	return h
}

func sub(a, b uint64) uint64 {
	if b > a {
		return 0
	}
	return a - b
}

// readMeminfo reads /proc/meminfo in bytes; on other systems it is empty (then the
// override, which asks for no memory, still admits us).
func readMeminfo() map[string]uint64 {
	out := map[string]uint64{}
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return out
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		f := bytes.Fields(sc.Bytes())
		if len(f) < 2 || len(f[0]) < 2 {
			continue
		}
		v, err := strconv.ParseUint(string(f[1]), 10, 64)
		if err != nil {
			continue
		}
		if len(f) > 2 && string(f[2]) == "kB" {
			v <<= 10
		}
		out[string(f[0][:len(f[0])-1])] = v
	}
	return out
}
