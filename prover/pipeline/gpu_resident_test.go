package pipeline

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"testing"
	"time"

	"github.com/snarkpipe/snarkpipe/prover"
	"github.com/snarkpipe/snarkpipe/prover/backend"
	"github.com/snarkpipe/snarkpipe/prover/backend/gpu"
	"github.com/snarkpipe/snarkpipe/prover/groth16"
	"github.com/snarkpipe/snarkpipe/prover/r1cs/r1cstest"
)

var (
	gpuPathLog    = flag.Int("pipeline.gpulog", 20, "TestGPUResidentPipeline: log2 of the timed circuit's constraints")
	gpuPathProofs = flag.Int("pipeline.gpuproofs", 3, "TestGPUResidentPipeline: partitions of the timed job")
)

// TestGPUResidentPipeline runs the pipeline's pre-compiled path on the real GPU backend
// (only with -pipeline.gpulib, the path of libsnarkpipe_cuda.so; it also accepts the host
// emulation at small -pipeline.gpulog). First, with the same fixed (r, s) and BenchKeys on
// both sides, small circuits proved on the GPU (key made on the device, shape resident,
// packed witness, pinned slots) give the same proof bytes as the CPU backend's host path
// (DevSetup from the same id-seeded stream). Then one job of -pipeline.gpuproofs
// partitions of a random circuit of 2^pipeline.gpulog constraints is proved with fresh
// randomness (the pipeline verifies every proof) and its stage timings are logged; with
// -pipeline.trace the timeline is written there. On the GPU host, from the repository root:
//
//	go test -c -o /tmp/pipeline.test ./prover/pipeline && cd prover/pipeline &&
//	/tmp/pipeline.test -test.run TestGPUResidentPipeline -test.v -pipeline.gpulib ../../cuda/build/libsnarkpipe_cuda.so -pipeline.gpulog 24 -pipeline.gpuproofs 4 -pipeline.trace /tmp/resident-trace.json
func TestGPUResidentPipeline(t *testing.T) {
	if *overlapGPU == "" {
		t.Skip("GPU test: run with -pipeline.gpulib path/to/libsnarkpipe_cuda.so")
	}
	be, err := gpu.New(gpu.Config{LibPath: *overlapGPU, Arith: gpu.Arith(os.Getenv("SP_TEST_GPU_ARITH"))})
	if err != nil {
		t.Fatal(err)
	}
	defer be.Close()
	t.Logf("device: %s", be.Report().Summary())
	cfg := DefaultConfig()
	cfg.HostBudget, cfg.DeviceBudget = 32<<30, 100<<30

	t.Run("same bytes as the CPU host path", func(t *testing.T) {
		rs, err := groth16.SampleRandomness(rand.NewChaCha8([32]byte{9}))
		if err != nil {
			t.Fatal(err)
		}
		jobs := []JobSpec{bitsJob(0, 1, 0xfeedface12345678)}
		jobs = append(jobs, JobSpec{Kind: "test", Priority: Normal, Circuits: []prover.Circuit{
			&r1cstest.Random{Seed: 5, Constraints: 1 << 10, Inputs: 4, Unused: 3}}})
		var want []Result
		cpuP := newPipelineOn(t, cfg, Deps{Backends: []backend.Backend{newCPU(t)}, Keys: BenchKeys{}}, &rs)
		for _, spec := range jobs {
			want = append(want, await(t, submit(t, cpuP, spec)))
		}
		cpuP.Close()
		gpuP := newPipelineOn(t, cfg, Deps{Backends: []backend.Backend{be}, Keys: BenchKeys{}}, &rs)
		defer gpuP.Close()
		if gpuP.mode.hostEval || !gpuP.mode.pack || gpuP.pinner == nil {
			t.Fatalf("GPU pipeline mode %+v, pinner %v: want the packed pre-compiled path with pinned slots", gpuP.mode, gpuP.pinner != nil)
		}
		for j, spec := range jobs {
			got := await(t, submit(t, gpuP, spec))
			for i := range got.Proofs {
				if got.Proofs[i].Bytes() != want[j].Proofs[i].Bytes() {
					t.Errorf("job %d partition %d (%s): GPU proof differs from the CPU's", j, i, spec.Circuits[i].ID())
				}
				if got.Timings[i].Resident.Total <= 0 {
					t.Errorf("job %d partition %d: no resident timings", j, i)
				}
			}
		}
	})

	t.Run("key tiers give the CPU's bytes", func(t *testing.T) {
		if !be.StreamsKeys() {
			t.Skip("library built before the streamed MSMs")
		}
		rs, err := groth16.SampleRandomness(rand.NewChaCha8([32]byte{10}))
		if err != nil {
			t.Fatal(err)
		}
		c := &r1cstest.Random{Seed: 6, Constraints: 1 << 10, Inputs: 4, Unused: 3}
		spec := JobSpec{Kind: "test", Priority: Normal, Circuits: []prover.Circuit{c}}
		cpuP := newPipelineOn(t, cfg, Deps{Backends: []backend.Backend{newCPU(t)}, Keys: BenchKeys{}}, &rs)
		want := await(t, submit(t, cpuP, spec))
		cpuP.Close()
		for _, tier := range []KeyTier{TierPartial, TierStreamed} {
			tcfg := cfg
			tcfg.KeyTier = tier
			p := newPipelineOn(t, tcfg, Deps{Backends: []backend.Backend{be}, Keys: BenchKeys{}}, &rs)
			info, err := p.Preload(context.Background(), c)
			if err != nil {
				t.Fatal(err)
			}
			wantTier := map[KeyTier]string{TierPartial: "partly resident (b_g2 streamed)", TierStreamed: "streamed (key and shape)"}[tier]
			if len(info.Tiers) != 1 || info.Tiers[0].Tier != wantTier || info.Tiers[0].HostBytes <= 0 {
				t.Errorf("tier %s: preload reports %+v, want %q with host bytes", tier, info.Tiers, wantTier)
			}
			got := await(t, submit(t, p, spec))
			if got.Proofs[0].Bytes() != want.Proofs[0].Bytes() {
				t.Errorf("tier %s: GPU proof differs from the CPU's", tier)
			}
			p.Close()
		}
	})

	t.Run("timed", func(t *testing.T) {
		p := newPipelineOn(t, cfg, Deps{Backends: []backend.Backend{be}, Keys: BenchKeys{}}, nil)
		defer p.Close()
		c := &r1cstest.Random{Seed: 42, Constraints: 1 << *gpuPathLog, Inputs: 8}
		t0 := time.Now()
		info, err := p.Preload(context.Background(), c)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: preload %v (host: record %v; device: bench key + shape upload %v)", c.ID(), time.Since(t0), info.HostLoad, info.KeyLoads)
		spec := JobSpec{Kind: "bench", Priority: Normal}
		for range *gpuPathProofs {
			spec.Circuits = append(spec.Circuits, c)
		}
		t0 = time.Now()
		res := await(t, submit(t, p, spec))
		wall := time.Since(t0)
		ms := func(d time.Duration) string { return fmt.Sprintf("%.1fms", float64(d.Microseconds())/1000) }
		t.Logf("%-4s %9s %9s %9s %9s | %9s %9s %9s %9s %9s %9s %9s %9s %9s | %9s %9s", "part", "witness", "pack", "pin", "handoff",
			"upload", "A·z", "quotient", "H", "L", "A", "B1", "B2(G2)", "assemble", "prove", "verify")
		for i, tm := range res.Timings {
			r := tm.Resident
			t.Logf("%-4d %9s %9s %9s %9s | %9s %9s %9s %9s %9s %9s %9s %9s %9s | %9s %9s", i, ms(tm.Witness), ms(tm.Pack), ms(tm.Pin), ms(tm.Handoff),
				ms(r.Upload), ms(r.Eval), ms(r.Quotient), ms(r.MSMH), ms(r.MSML), ms(r.MSMA), ms(r.MSMB1), ms(r.MSMB2), ms(r.Assemble), ms(tm.Prove), ms(tm.Verify))
		}
		t.Logf("%d partitions in %v (%.2f s/partition)", len(res.Proofs), wall, wall.Seconds()/float64(len(res.Proofs)))
		if *overlapTrace != "" {
			f, err := os.Create(*overlapTrace)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if err := p.WriteTrace(f); err != nil {
				t.Fatal(err)
			}
		}
	})
}
