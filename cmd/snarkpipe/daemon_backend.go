package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/snarkpipe/snarkpipe/prover/backend"
	"github.com/snarkpipe/snarkpipe/prover/backend/cpu"
	"github.com/snarkpipe/snarkpipe/prover/backend/gpu"
)

// chooseBackends applies the backend policy: gpu needs every configured GPU, cpu never
// looks for one, auto uses the GPUs when the CUDA library and a device are present and
// falls back to the CPU otherwise. It returns the backends, a description, whether they
// are GPUs, and one line per GPU (device, code, memory and cap, arithmetic and why),
// which it also logs.
func chooseBackends(cfg daemonConfig) ([]backend.Backend, string, bool, []string, error) {
	if cfg.Backend == "cpu" {
		return cpuBackend()
	}
	ordinals := cfg.GPUs
	if len(ordinals) == 0 {
		ordinals = []int{0}
	}
	arith, _ := gpu.ParseArith(cfg.GPUArith) // checked by validate
	var out []backend.Backend
	var names, devices []string
	for _, o := range ordinals {
		be, err := gpu.New(gpu.Config{Device: o, ProofStreams: cfg.GPUProofStreams, Arith: arith,
			MemoryLimit: uint64(cfg.DeviceMemLimit * (1 << 30))})
		if err != nil {
			for _, b := range out {
				b.Close()
			}
			if cfg.Backend == "auto" && errors.Is(err, gpu.ErrNoCUDA) {
				log.Infow("no GPU, using the CPU backend", "reason", err)
				return cpuBackend()
			}
			return nil, "", false, nil, fmt.Errorf("backend gpu: device %d: %w", o, err)
		}
		out = append(out, be)
		names = append(names, fmt.Sprintf("gpu%d (%s)", o, be.Device().Name))
		r := be.Report()
		devices = append(devices, r.Summary())
		log.Infow("GPU", "device", o, "summary", r.Summary(), "library", r.Build)
	}
	return out, "gpu: " + strings.Join(names, ", "), true, devices, nil
}

func cpuBackend() ([]backend.Backend, string, bool, []string, error) {
	be, err := cpu.New(cpu.DefaultConfig())
	if err != nil {
		return nil, "", false, nil, err
	}
	return []backend.Backend{be}, "cpu", false, nil, nil
}
