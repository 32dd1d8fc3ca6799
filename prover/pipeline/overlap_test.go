package pipeline

import (
	"context"
	"flag"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/snarkpipe/snarkpipe/prover"
	"github.com/snarkpipe/snarkpipe/prover/backend"
	"github.com/snarkpipe/snarkpipe/prover/backend/cpu"
	"github.com/snarkpipe/snarkpipe/prover/backend/gpu"
	"github.com/snarkpipe/snarkpipe/prover/r1cs/r1cstest"
	"github.com/snarkpipe/snarkpipe/prover/srs"
	"github.com/snarkpipe/snarkpipe/prover/srs/srstest"
)

var (
	overlapTrace = flag.String("pipeline.trace", "", "BenchmarkOverlap writes the pipelined run's timeline (Chrome trace JSON) here")
	overlapRows  = flag.Int("pipeline.rows", 1<<14, "BenchmarkOverlap circuit rows")
	overlapJobs  = flag.Int("pipeline.jobs", 8, "BenchmarkOverlap jobs (2 partitions each)")
	overlapSynth = flag.Int("pipeline.synth", 2, "BenchmarkOverlap synthesis workers of the pipelined run")
	overlapGPU   = flag.String("pipeline.gpulib", "", "BenchmarkOverlap proves on the GPU backend with this libsnarkpipe_cuda.so (default: CPU backend)")
)

// overlapBackend is the CPU backend, or the GPU one when -pipeline.gpulib is set.
func overlapBackend(b *testing.B) backend.Backend {
	if *overlapGPU != "" {
		be, err := gpu.New(gpu.Config{LibPath: *overlapGPU})
		if err != nil {
			b.Fatal(err)
		}
		return be
	}
	be, err := cpu.New(cpu.DefaultConfig())
	if err != nil {
		b.Fatal(err)
	}
	return be
}

// BenchmarkOverlap runs the same workload twice (CPU backend, or GPU with
// -pipeline.gpulib): strictly sequential
// (one partition in flight from synthesis to finalize: one worker per stage, each job
// awaited before the next is submitted) and pipelined (every job submitted at once, the
// default stage sizes). Run it once: -bench Overlap -benchtime 1x.
func BenchmarkOverlap(b *testing.B) {
	circuit := func() prover.Circuit {
		return &r1cstest.Random{Seed: 42, Constraints: *overlapRows, Inputs: 4}
	}
	srstest.DevParams(b, circuit()) // dev setup outside the timings
	workload := func() []JobSpec {
		var specs []JobSpec
		for i := 0; i < *overlapJobs; i++ {
			specs = append(specs, JobSpec{Kind: "bench", Priority: Normal, Circuits: []prover.Circuit{circuit(), circuit()}})
		}
		return specs
	}
	run := func(b *testing.B, cfg Config, sequential bool) *Pipeline {
		be := overlapBackend(b)
		b.Cleanup(func() { be.Close() })
		p, err := New(cfg, Deps{Backends: []backend.Backend{be}, Params: srs.Dev{Cache: srstest.Cache(b)}})
		if err != nil {
			b.Fatal(err)
		}
		p.Start()
		b.Cleanup(func() { p.Close() })
		if _, err := p.Preload(context.Background(), circuit()); err != nil { // residency outside the timings
			b.Fatal(err)
		}
		b.ResetTimer()
		start := time.Now()
		specs := workload()
		if sequential {
			for _, spec := range specs {
				for _, c := range spec.Circuits {
					one := spec
					one.Circuits = []prover.Circuit{c}
					awaitBench(b, p, one)
				}
			}
		} else {
			var wg sync.WaitGroup
			for _, spec := range specs {
				wg.Add(1)
				go func() { defer wg.Done(); awaitBench(b, p, spec) }()
			}
			wg.Wait()
		}
		wall := time.Since(start)
		b.ReportMetric(wall.Seconds(), "wall-s")
		b.ReportMetric(wall.Seconds()/float64(2*len(specs)), "s/partition")
		return p
	}
	b.Run("sequential", func(b *testing.B) {
		cfg := DefaultConfig()
		cfg.HostBudget = 16 << 30
		cfg.SynthesisWorkers, cfg.HandoffDepth, cfg.WorkersPerDevice, cfg.FinalizeWorkers = 1, 1, 1, 1
		run(b, cfg, true)
	})
	b.Run("pipelined", func(b *testing.B) {
		cfg := DefaultConfig()
		cfg.HostBudget = 16 << 30
		cfg.SynthesisWorkers = *overlapSynth
		p := run(b, cfg, false)
		if *overlapTrace != "" {
			f, err := os.Create(*overlapTrace)
			if err != nil {
				b.Fatal(err)
			}
			defer f.Close()
			if err := p.WriteTrace(f); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func awaitBench(b *testing.B, p *Pipeline, spec JobSpec) {
	j, err := p.Submit(context.Background(), spec)
	if err != nil {
		b.Error(err)
		return
	}
	if _, err := j.Await(context.Background()); err != nil {
		b.Error(err)
	}
}
