package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/snarkpipe/snarkpipe/prover/backend"
	"github.com/snarkpipe/snarkpipe/prover/backend/cpu"
	"github.com/snarkpipe/snarkpipe/prover/backend/gpu"
	"github.com/snarkpipe/snarkpipe/prover/pipeline"
	"github.com/snarkpipe/snarkpipe/types"
)

// benchOptions are the flags of `bench porep|winning|window|snap`.
type benchOptions struct {
	kind          string
	size          uint64
	proofs        int
	partitions    int // window: partition requests per proof
	sequential    bool
	seed          uint64
	cpu           bool
	allowCPULarge bool
	devices       []int
	lib           string
	cold          bool      // no Preload: the first proof pays the setup
	proofStreams  int       // gpu.Config.ProofStreams
	serialMSMs    bool      // gpu.Config.SerialMSMs
	streamPlan    []float64 // gpu.Config.StreamPlan
	arith         gpu.Arith // gpu.Config.Arith
	memLimit      uint64    // gpu.Config.MemoryLimit (bytes; 0: none)
	hostKeys      bool      // keys kept on the host as parameters (pipeline.BenchParams)
	keyDevice     int       // --host-keys: the GPU that makes them (-1: the first of devices)
	windowDuring  bool      // porep: one Window PoSt partition submitted after the first proof
	writeParams   string    // write each key once as .params + .vk in this directory
	pipe          pipeline.Config
	trace, json   string
	poll          time.Duration
	progress      time.Duration
}

// benchProveFlags are shared by the four proof kinds.
func benchProveFlags(kind string) []cli.Flag {
	d := pipeline.DefaultConfig().Resolved()
	flags := []cli.Flag{
		&cli.StringFlag{Name: "size", Required: true, Usage: "sector size: 2KiB, 8MiB, 512MiB, 32GiB or 64GiB"},
		&cli.IntFlag{Name: "proofs", Value: 1, Usage: "proofs to make (each fully verified; 0 with --write-params: only make and write the keys)"},
		&cli.BoolFlag{Name: "sequential", Usage: "submit each proof after the previous one finished (default: all at once, so the pipeline overlaps them)"},
		&cli.Uint64Flag{Name: "seed", Value: 1, Usage: "seed of the synthetic inputs"},
		&cli.BoolFlag{Name: "cpu", Usage: "use the CPU backend even if a GPU is present"},
		&cli.BoolFlag{Name: "allow-cpu-large", Usage: "allow 32/64 GiB on the CPU backend (hours per proof and tens of GiB; benchmark keys by DevSetup are impractical there)"},
		&cli.IntSliceFlag{Name: "device", Usage: "CUDA device ordinal (repeat for several GPUs; default 0)"},
		&cli.StringFlag{Name: "lib", Usage: "path of libsnarkpipe_cuda.so (default: next to the binary, then cuda/build/)"},
		&cli.BoolFlag{Name: "cold", Usage: "skip the preload: the first proof also pays recording and key generation"},
		&cli.IntFlag{Name: "synth-workers", Value: d.SynthesisWorkers, Usage: "partitions synthesized at once (each holds one witness working set)"},
		&cli.BoolFlag{Name: "preload-slots", Value: d.PreloadSlots, Usage: "the setup also allocates and page-locks the pooled working-set slots (pipeline preload_slots; --preload-slots=false leaves that to the first proof)"},
		&cli.BoolFlag{Name: "pin-keys", Usage: "page-lock the host copies of proving keys (pipeline pin_keys), so that GPU key loads run at bus speed; with --host-keys it measures a residency swap's loads"},
		&cli.IntFlag{Name: "workers-per-device", Value: d.WorkersPerDevice, Usage: "device workers per GPU (one proves while the next prepares)"},
		&cli.IntFlag{Name: "proof-streams", Usage: "partitions proved at once per GPU, each on its own CUDA stream (0: the backend's default)"},
		&cli.BoolFlag{Name: "serial-msms", Usage: "run every stage of a partition on one CUDA stream (default: the small MSMs run on a side stream beside the quotient and the H MSM)"},
		&cli.StringFlag{Name: "gpu-arith", Value: string(gpu.ArithAuto), Usage: "the NTTs' field product: auto (FP64 where the GPU runs FP64 at 1/4 of FP32 or better, else integer), int or fp64"},
		&cli.Float64Flag{Name: "device-memory-limit", Usage: "cap in GiB on the device memory the process allocates per GPU, as on a card of that size (0: none)"},
		&cli.StringFlag{Name: "key-tier", Value: "auto", Usage: "memory tier of the proving keys on the GPUs (pipeline key_tier): auto (resident where the key fits beside the circuit, else the fewest vectors streamed from page-locked host memory), resident, partial or streamed"},
		&cli.Float64SliceFlag{Name: "stream-plan", Usage: "where a streamed partition (PoSt) cuts aux for its B2 MSM, as increasing fractions in (0, 1) (default: the backend's, gpu.DefaultStreamPlan)"},
		&cli.BoolFlag{Name: "whole-witness", Usage: "hand partitions to the GPU only once their witness is filled (pipeline whole_witness; default: PoSt partitions stream)"},
		&cli.IntFlag{Name: "handoff", Value: d.HandoffDepth, Usage: "synthesized partitions that may wait for a device worker"},
		&cli.IntFlag{Name: "eval-tasks", Value: d.EvalTasks, Usage: "parallelism of host-side evaluation and packing (0: all CPUs)"},
		&cli.Float64Flag{Name: "host-budget", Usage: "host memory budget in GiB (default: physical memory minus 5 GiB)"},
		&cli.Float64Flag{Name: "device-budget", Usage: "device memory budget in GiB (default: the GPU's memory minus 2 GiB; CPU: the host budget)"},
		&cli.StringFlag{Name: "recordings", Usage: "keep recorded circuits in this directory across runs (default: record in memory at every start)"},
		&cli.StringFlag{Name: "write-params", Usage: "write each benchmark key once into this `DIR` as a .params + .vk pair with the dev trailer, under the official file names (a daemon with allow_dev_params on DIR loads them); a GPU key is read back from the device as it is written"},
		&cli.StringFlag{Name: "trace", Usage: "write the pipeline timeline (Chrome trace JSON) to this file"},
		&cli.StringFlag{Name: "json", Usage: "write the results as JSON to this file"},
		&cli.DurationFlag{Name: "poll", Value: 100 * time.Millisecond, Usage: "memory polling interval (host RSS, GPU used memory)"},
		&cli.DurationFlag{Name: "progress", Value: 10 * time.Second, Usage: "interval of the progress line while proving (0: none)"},
	}
	flags = append(flags,
		&cli.BoolFlag{Name: "host-keys", Usage: "make each benchmark key once and keep it on the host as parameters; devices load it by copying, as real parameter files (a swap costs an upload, not a key generation)"},
		&cli.IntFlag{Name: "key-device", Value: -1, Usage: "with --host-keys on GPUs: the CUDA ordinal that makes the keys (default: the first --device); another GPU keeps key generation out of the proving GPU's memory"})
	if kind == "window" {
		flags = append(flags, &cli.IntFlag{Name: "partitions", Value: 1, Usage: "Window PoSt partitions per proof (one request each)"})
	}
	if kind == "porep" {
		flags = append(flags, &cli.BoolFlag{Name: "window-during", Usage: "after the first proof, submit one Window PoSt partition of the same sector size and report its latency while C2 runs (its circuit is preloaded first; with --host-keys a swap copies keys)"})
	}
	return flags
}

func benchProveCmd(kind, usage string) *cli.Command {
	return &cli.Command{
		Name: kind, Usage: usage, Flags: benchProveFlags(kind),
		Description: "From a cold start: makes seeded synthetic full-shape inputs, opens the backend (GPU when the CUDA\n" +
			"library and a device are present, else CPU), makes INSECURE benchmark keys in memory (known toxic waste;\n" +
			"nothing written), preloads the circuit, proves --proofs proofs through the pipeline and the sealer Service,\n" +
			"verifies every one, and prints setup phases, a per-partition table, per-proof latencies, steady-state\n" +
			"seconds per proof, proofs/hour and peak host and GPU memory. Progress lines show where time goes as it goes.",
		Action: func(c *cli.Context) error {
			opts, err := benchOptionsOf(c, kind)
			if err != nil {
				return err
			}
			return runBench(c.Context, c.App.Writer, opts)
		},
	}
}

func benchOptionsOf(c *cli.Context, kind string) (benchOptions, error) {
	size, err := parseBenchSize(c.String("size"))
	if err != nil {
		return benchOptions{}, err
	}
	o := benchOptions{
		kind: kind, size: size, proofs: c.Int("proofs"), partitions: 1, sequential: c.Bool("sequential"),
		seed: c.Uint64("seed"), cpu: c.Bool("cpu"), allowCPULarge: c.Bool("allow-cpu-large"),
		devices: c.IntSlice("device"), lib: c.String("lib"), cold: c.Bool("cold"), proofStreams: c.Int("proof-streams"),
		serialMSMs: c.Bool("serial-msms"), streamPlan: c.Float64Slice("stream-plan"),
		hostKeys: c.Bool("host-keys"), keyDevice: c.Int("key-device"), windowDuring: kind == "porep" && c.Bool("window-during"),
		trace: c.String("trace"), json: c.String("json"), poll: c.Duration("poll"), progress: c.Duration("progress"),
		writeParams: c.String("write-params"),
	}
	if kind == "window" {
		o.partitions = c.Int("partitions")
	}
	if o.arith, err = gpu.ParseArith(c.String("gpu-arith")); err != nil {
		return o, fmt.Errorf("bench: --gpu-arith: %w", err)
	}
	if l := c.Float64("device-memory-limit"); l < 0 {
		return o, fmt.Errorf("bench: --device-memory-limit %v must not be negative", l)
	} else {
		o.memLimit = uint64(gib(l))
	}
	if len(o.devices) == 0 {
		o.devices = []int{0}
	}
	o.pipe = pipeline.DefaultConfig()
	o.pipe.SynthesisWorkers = c.Int("synth-workers")
	o.pipe.PinKeys = c.Bool("pin-keys")
	o.pipe.WholeWitness = c.Bool("whole-witness")
	if o.pipe.KeyTier, err = pipeline.ParseKeyTier(c.String("key-tier")); err != nil {
		return o, fmt.Errorf("bench: --key-tier: %w", err)
	}
	o.pipe.PreloadSlots = c.Bool("preload-slots")
	o.pipe.WorkersPerDevice = c.Int("workers-per-device")
	o.pipe.HandoffDepth = c.Int("handoff")
	o.pipe.EvalTasks = c.Int("eval-tasks")
	o.pipe.RecordingsDir = c.String("recordings")
	o.pipe.HostBudget = gib(c.Float64("host-budget"))
	o.pipe.DeviceBudget = gib(c.Float64("device-budget"))
	switch {
	case o.proofs < 0 || (o.proofs == 0 && o.writeParams == ""):
		return o, fmt.Errorf("bench: --proofs %d < 1 (0 only with --write-params)", o.proofs)
	case o.proofs == 0 && o.cold:
		return o, errors.New("bench: --proofs 0 makes the keys in the setup (not --cold)")
	case o.partitions < 1:
		return o, fmt.Errorf("bench: --partitions %d < 1", o.partitions)
	case o.keyDevice >= 0 && !o.hostKeys:
		return o, errors.New("bench: --key-device applies to --host-keys")
	case o.windowDuring && o.sequential:
		return o, errors.New("bench: --window-during needs the proofs submitted at once (not --sequential)")
	case o.windowDuring && o.cold:
		return o, errors.New("bench: --window-during preloads both circuits (not --cold)")
	case o.poll <= 0:
		return o, fmt.Errorf("bench: --poll %v must be positive", o.poll)
	case o.pipe.HostBudget < 0 || o.pipe.DeviceBudget < 0:
		return o, errors.New("bench: budgets must not be negative")
	}
	return o, o.pipe.Validate()
}

func gib(v float64) int64 { return int64(v * (1 << 30)) }

// benchBackends opens the backends: the GPUs when the library and the devices are there
// (and --cpu is not given), else the CPU backend. It says which in its description.
func benchBackends(o benchOptions) (bes []backend.Backend, desc string, isGPU bool, err error) {
	if !o.cpu {
		for _, d := range o.devices {
			be, err := gpu.New(gpu.Config{Device: d, LibPath: o.lib, ProofStreams: o.proofStreams, SerialMSMs: o.serialMSMs,
				StreamPlan: o.streamPlan, Arith: o.arith, MemoryLimit: o.memLimit})
			if err != nil {
				for _, b := range bes {
					b.Close()
				}
				if errors.Is(err, gpu.ErrNoCUDA) {
					be, cerr := cpu.New(cpu.DefaultConfig())
					if cerr != nil {
						return nil, "", false, cerr
					}
					return []backend.Backend{be}, fmt.Sprintf("cpu (%d cores; no GPU: %v)", runtime.NumCPU(), err), false, nil
				}
				return nil, "", false, fmt.Errorf("bench: GPU %d: %w", d, err)
			}
			bes = append(bes, be)
			if desc != "" {
				desc += ", "
			}
			desc += fmt.Sprintf("gpu%d %s", d, be.Report().Summary())
		}
		return bes, desc, true, nil
	}
	be, err := cpu.New(cpu.DefaultConfig())
	if err != nil {
		return nil, "", false, err
	}
	return []backend.Backend{be}, fmt.Sprintf("cpu (%d cores; --cpu)", runtime.NumCPU()), false, nil
}

// progress prints timestamped lines: a run cut short still shows where its time went.
type progress struct {
	w     io.Writer
	start time.Time
}

func (p *progress) printf(format string, args ...any) {
	fmt.Fprintf(p.w, "[%8.2fs] %s\n", time.Since(p.start).Seconds(), fmt.Sprintf(format, args...))
}

// runBench is the whole benchmark: inputs, backends, keys, pipeline, Service, preload,
// proofs, report.
func runBench(ctx context.Context, w io.Writer, o benchOptions) error {
	pr := &progress{w: w, start: time.Now()}
	if o.size >= types.SectorSize32GiB && o.cpu && !o.allowCPULarge {
		return fmt.Errorf("bench: %s at %s on the CPU backend takes hours and tens of GiB; pass --allow-cpu-large to run it anyway", o.kind, sizeLabel(o.size))
	}
	t := time.Now()
	bes, desc, isGPU, err := benchBackends(o)
	if err != nil {
		return err
	}
	backendOpen := time.Since(t)
	closeBackends := func() {
		for _, b := range bes {
			b.Close()
		}
	}
	if !isGPU && o.size >= types.SectorSize32GiB && !o.allowCPULarge {
		closeBackends()
		return fmt.Errorf("bench: no GPU (%s): %s at %s on the CPU backend takes hours; pass --allow-cpu-large to run it anyway", desc, o.kind, sizeLabel(o.size))
	}
	pr.printf("backend: %s", desc)
	written := "made in memory, never written"
	if o.writeParams != "" {
		written = "made in memory, written once to " + o.writeParams + " with the dev trailer"
	}
	pr.printf("parameters: INSECURE benchmark keys (toxic waste derived from the circuit id, known to anyone; %s); proofs verify only against them", written)
	var gpus []backend.MemoryReporter
	if isGPU {
		for _, b := range bes {
			if m, ok := b.(backend.MemoryReporter); ok {
				gpus = append(gpus, m)
			}
		}
	}
	mon := newMemMonitor(gpus, o.poll)
	defer mon.close()
	run := &benchRun{o: o, pr: pr, mon: mon, backends: bes, desc: desc, isGPU: isGPU, closeBackends: closeBackends}
	run.res.Setup.Backend = seconds(backendOpen)
	return run.do(ctx)
}

func sizeLabel(size uint64) string {
	for _, z := range benchSizes {
		if z.bytes == size {
			return z.label
		}
	}
	return fmt.Sprint(size)
}
