package pipeline

import (
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"time"

	"github.com/snarkpipe/snarkpipe/prover"
	"github.com/snarkpipe/snarkpipe/prover/backend"
)

// Config sets the pipeline's sizes, budgets and policies.
type Config struct {
	// HostBudget bounds host memory: resident parameters and recordings plus the pooled
	// working sets of partitions in flight. 0: physical memory minus SafetyMargin.
	HostBudget   int64 `toml:"host_budget"`
	SafetyMargin int64 `toml:"safety_margin"`
	// DeviceBudget bounds each device: resident proving keys plus per-partition device
	// working sets. 0: a GPU's memory less DeviceHeadroom (a backend without memory of
	// its own, the CPU, gets the host budget). A budget above a GPU's memory less the
	// headroom is cut to that: admitting more than fits would turn the residency policy's
	// evictions into out-of-memory errors.
	DeviceBudget int64 `toml:"device_budget"`

	// SynthesisWorkers partitions synthesize at once (each holds one working set). 0:
	// automatic, a quarter of the CPUs (at least one); see Resolved.
	SynthesisWorkers int `toml:"synthesis_workers"`
	// CriticalWorkers are synthesis workers, besides SynthesisWorkers, that take only
	// Critical partitions (Winning PoSt, preloads). A worker holds its partition while it
	// waits for host memory and while its synthesis runs (seconds for a 32 GiB PoRep
	// partition), so without them a Winning PoSt can wait for every worker to come free:
	// 27.9 s in the GPU run of itests' TestLoadMixed with one worker. 0: none.
	CriticalWorkers int `toml:"critical_workers"`
	// EvalTasks is the parallelism of one host A·z, B·z, C·z evaluation, or of one
	// witness packing on the packed pre-compiled path (0: all CPUs).
	EvalTasks int `toml:"eval_tasks"`
	// HandoffDepth is how many synthesized partitions may wait for a device worker.
	HandoffDepth int `toml:"handoff_depth"`
	// WorkersPerDevice device workers share each backend (one proves while the other
	// prepares, as cuzk's two workers per GPU).
	WorkersPerDevice int `toml:"workers_per_device"`
	// FinalizeWorkers verify and encode proofs.
	FinalizeWorkers int `toml:"finalize_workers"`
	// MaxBatch > 1 lets a device worker prove up to that many synthesized partitions of
	// one circuit (from any jobs) in one call, taking them only in priority order;
	// MaxBatchWait is how long it waits for more when fewer are ready. 1: no batching (the
	// default: the current backends prove a batch one circuit after the other, so batching
	// only pays with a backend that shares work across circuits).
	MaxBatch     int           `toml:"max_batch"`
	MaxBatchWait time.Duration `toml:"max_batch_wait"`

	// RecordingsDir keeps recorded circuits and capacity hints across restarts ("": in
	// memory only). It must not be the official parameter directory. (The daemon sets it
	// from its top-level recordings_dir: not a key of the [pipeline] section.)
	RecordingsDir string `toml:"-"`
	// RecordingsMaxBytes is the disk budget of RecordingsDir (≤ 0: unbounded).
	RecordingsMaxBytes int64 `toml:"recordings_max_bytes"`

	// PinKeys page-locks the host copy of each circuit's proving key (its parameters) once
	// loaded, through the GPU backend, so that loading the key onto a GPU (at first use
	// and after every eviction: the residency swaps) copies at full bus speed instead of
	// through the driver's pageable staging. Costs the page-locking time at each host
	// load and nothing in memory (the host copy is resident anyway). Off by default until
	// measured: at 32 GiB a Window PoSt key took 16 s to load from pageable memory.
	PinKeys bool `toml:"pin_keys"`

	// PreloadSlots makes Preload also allocate the pooled working-set slots of the
	// circuit (one per synthesis worker, hand-off place and device worker, as far as they
	// fit the host budget without evicting anything) and page-lock them on a GPU, work the
	// first proof would otherwise do while it runs: at 32 GiB PoRep the page-locking held
	// up the first proof's device work by about 11 s. The slots stay pooled as they would
	// after that proof (idle slots are evicted first when memory is needed).
	PreloadSlots bool `toml:"preload_slots"`

	// WholeWitness hands a partition to the device workers only once its witness is
	// filled. Off (the default), a partition of a circuit that fills its aux in order
	// (prover.ProgressFiller: the PoSt circuits) goes to them before its fill, and a
	// device that streams (backend.StreamingShapeEvaluator) runs the MSMs over aux on the
	// part filled while the host fills the rest; the device worker holds its device
	// meanwhile.
	WholeWitness bool `toml:"whole_witness"`

	// KeyTier forces the memory tier of every circuit's proving key on the devices that
	// can stream key vectors from host memory (tiers.go): "" (auto: resident where it
	// fits, else the fewest vectors streamed), "resident", "partial" or "streamed".
	KeyTier KeyTier `toml:"key_tier"`

	// Pinned circuits are never evicted once loaded (small SRS such as Winning PoSt).
	Pinned []prover.CircuitID `toml:"pinned"`

	// IdempotencyTTL is how long a succeeded job stays returned for its key.
	IdempotencyTTL time.Duration `toml:"idempotency_ttl"`
	// TraceEvents is the capacity of the timeline ring buffer (0: no timeline).
	TraceEvents int `toml:"trace_events"`
}

// DefaultConfig is the default configuration. Its machine-dependent sizes are 0
// (automatic) so that a written-out default stays right on another machine; New applies
// Resolved.
func DefaultConfig() Config {
	return Config{
		SafetyMargin:     5 << 30,
		CriticalWorkers:  1,
		HandoffDepth:     2,
		WorkersPerDevice: 2,
		FinalizeWorkers:  2,
		MaxBatch:         1,
		PreloadSlots:     true,
		IdempotencyTTL:   10 * time.Minute,
		TraceEvents:      100_000,
	}
}

// Resolved returns the configuration with its automatic (0) sizes set for this machine.
func (c Config) Resolved() Config {
	if c.SynthesisWorkers == 0 {
		c.SynthesisWorkers = max(1, runtime.NumCPU()/4)
	}
	return c
}

// Validate checks the configuration.
func (c Config) Validate() error {
	var errs []error
	check := func(ok bool, format string, args ...any) {
		if !ok {
			errs = append(errs, fmt.Errorf("pipeline: "+format, args...))
		}
	}
	if _, err := ParseKeyTier(string(c.KeyTier)); err != nil {
		errs = append(errs, err)
	}
	check(c.HostBudget >= 0 && c.DeviceBudget >= 0 && c.SafetyMargin >= 0, "budgets must not be negative")
	check(c.SynthesisWorkers >= 0, "SynthesisWorkers %d < 0", c.SynthesisWorkers)
	check(c.CriticalWorkers >= 0, "CriticalWorkers %d < 0", c.CriticalWorkers)
	check(c.EvalTasks >= 0, "EvalTasks %d < 0", c.EvalTasks)
	check(c.HandoffDepth >= 1, "HandoffDepth %d < 1", c.HandoffDepth)
	check(c.WorkersPerDevice >= 1, "WorkersPerDevice %d < 1", c.WorkersPerDevice)
	check(c.FinalizeWorkers >= 1, "FinalizeWorkers %d < 1", c.FinalizeWorkers)
	check(c.MaxBatch >= 1, "MaxBatch %d < 1", c.MaxBatch)
	check(c.MaxBatchWait >= 0, "MaxBatchWait %v < 0", c.MaxBatchWait)
	check(c.IdempotencyTTL >= 0, "IdempotencyTTL %v < 0", c.IdempotencyTTL)
	check(c.TraceEvents >= 0, "TraceEvents %d < 0", c.TraceEvents)
	return errors.Join(errs...)
}

// DeviceHeadroom is the most of a GPU's memory kept outside its device budget: the CUDA
// context and the library's scratch, which the pipeline does not account. A device (or
// device-memory cap) of less than 16 GiB keeps an eighth of its memory (deviceHeadroom).
const DeviceHeadroom = 2 << 30

// deviceHeadroom is the headroom of a device with total bytes: DeviceHeadroom, or an
// eighth of a smaller device's memory.
func deviceHeadroom(total uint64) uint64 { return min(DeviceHeadroom, total/8) }

// deviceAdvice and hostAdvice end a refusal (ErrTooLarge) of the device and host budgets.
const (
	deviceAdvice = ": it needs a GPU with more memory (or a larger device_budget or device_memory_limit, if set below the card's memory); what is counted already leaves in host memory every key vector and the recorded circuit that the device can stream (key_tier); the proof buffers (z and three domain vectors) cannot be streamed yet"
	hostAdvice   = ": it needs more host memory (or a larger host_budget, if set)"
)

// deviceBudget resolves the budget of the device served by be (see DeviceBudget).
func (c Config) deviceBudget(be backend.Backend, hostBudget int64, log *slog.Logger) (int64, error) {
	configured := hostBudget
	if c.DeviceBudget > 0 {
		configured = c.DeviceBudget
	}
	mr, ok := be.(backend.MemoryReporter)
	if !ok {
		return configured, nil
	}
	_, total, err := mr.MemInfo()
	if err != nil {
		// (the host emulation of the CUDA library has no memory figures)
		log.Warn("pipeline: device memory unknown; its budget is the configured one", "device", be.Name(), "budget", configured, "err", err)
		return configured, nil
	}
	headroom := deviceHeadroom(total)
	if total <= headroom || headroom == 0 {
		return 0, fmt.Errorf("pipeline: %s has %d bytes of memory, too few to prove on", be.Name(), total)
	}
	usable := int64(total - headroom)
	if c.DeviceBudget > 0 && c.DeviceBudget < usable {
		return c.DeviceBudget, nil
	}
	return usable, nil
}

// hostBudget resolves the automatic host budget.
func (c Config) hostBudget() (int64, error) {
	if c.HostBudget > 0 {
		return c.HostBudget, nil
	}
	total, err := physicalMemory()
	if err != nil {
		return 0, fmt.Errorf("pipeline: HostBudget not set and %w", err)
	}
	if total <= c.SafetyMargin {
		return 0, fmt.Errorf("pipeline: physical memory %d is not above the safety margin %d", total, c.SafetyMargin)
	}
	return total - c.SafetyMargin, nil
}
