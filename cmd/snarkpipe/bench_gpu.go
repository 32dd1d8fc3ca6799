package main

import (
	"github.com/snarkpipe/snarkpipe/prover/backend/gpu"
	"github.com/urfave/cli/v2"
)

var benchCmd = &cli.Command{
	Name:  "bench",
	Usage: "measure proving: whole proofs through the pipeline (porep, winning, window, snap) or the GPU kernels (gpu)",
	Subcommands: []*cli.Command{
		benchProveCmd("porep", "PoRep C2 (SealCommit2) proofs of a synthetic C1 output"),
		benchProveCmd("winning", "Winning PoSt proofs of a synthetic sector"),
		benchProveCmd("window", "Window PoSt proofs of a synthetic full partition (--partitions per proof)"),
		benchProveCmd("snap", "SnapDeals (ProveReplicaUpdate2) proofs of a synthetic sector update"),
		benchGPUCmd,
	},
}

var benchGPUCmd = &cli.Command{
	Name: "gpu",
	Usage: "GPU kernel table on one device: G1 MSM (random and Filecoin-like), G2 MSM, forward and coset NTT, " +
		"bitmap batch addition; time and ns/point (see docs/BENCHMARKS.md, \"GPU kernels\")",
	Flags: []cli.Flag{
		&cli.IntFlag{Name: "device", Usage: "CUDA device ordinal"},
		&cli.StringFlag{Name: "lib", Usage: "path of libsnarkpipe_cuda.so (default: next to the binary, then cuda/build/)"},
		&cli.IntFlag{Name: "g1-max", Value: 27, Usage: "log2 of the largest G1 MSM (from 2^20)"},
		&cli.IntFlag{Name: "g2-max", Value: 25, Usage: "log2 of the largest G2 MSM (from 2^20)"},
		&cli.IntFlag{Name: "ntt-max", Value: 27, Usage: "log2 of the largest NTT (from 2^20)"},
		&cli.IntFlag{Name: "repeats", Value: 3, Usage: "timed runs per row after one warm-up (the median is printed)"},
		&cli.StringFlag{Name: "gpu-arith", Value: string(gpu.ArithAuto), Usage: "the NTTs' field product: auto, int or fp64 (the MSMs use the integer product either way)"},
	},
	Action: func(c *cli.Context) error {
		cfg := gpu.DefaultBenchConfig()
		cfg.Device = c.Int("device")
		cfg.LibPath = c.String("lib")
		cfg.Arith = gpu.Arith(c.String("gpu-arith"))
		cfg.G1MaxLog, cfg.G2MaxLog, cfg.NTTMaxLog = c.Int("g1-max"), c.Int("g2-max"), c.Int("ntt-max")
		cfg.G1MinLog = min(cfg.G1MinLog, cfg.G1MaxLog)
		cfg.G2MinLog = min(cfg.G2MinLog, cfg.G2MaxLog)
		cfg.NTTMinLog = min(cfg.NTTMinLog, cfg.NTTMaxLog)
		cfg.BatchLog = min(cfg.BatchLog, cfg.G1MaxLog)
		cfg.Repeats = c.Int("repeats")
		return gpu.Bench(c.App.Writer, cfg)
	},
}
