package main

import (
	"fmt"
	"io"
	"runtime"
	"time"

	"github.com/snarkpipe/snarkpipe/prover/backend/cpu"
	"github.com/snarkpipe/snarkpipe/prover/groth16"
	"github.com/snarkpipe/snarkpipe/prover/r1cs"
	"github.com/snarkpipe/snarkpipe/prover/r1cs/r1cstest"
	"github.com/snarkpipe/snarkpipe/prover/srs"
	"github.com/urfave/cli/v2"
)

var demoCmd = &cli.Command{
	Name:  "demo",
	Usage: "set up dev parameters for a built-in circuit, prove, verify and print timings",
	Flags: []cli.Flag{
		&cli.IntFlag{Name: "constraints", Value: 1<<16 - 4, Usage: "length of the built-in squaring chain"},
		&cli.StringFlag{Name: "cache", Usage: "where dev parameters are kept (default: user cache dir/snarkpipe/dev-params, shared by every command)"},
	},
	Action: func(c *cli.Context) error {
		return runDemo(c.App.Writer, c.Int("constraints"), srs.DirCache{Dir: keyFlags{cache: c.String("cache")}.cacheDir()})
	},
}

// runDemo proves one built-in circuit on the CPU backend end to end.
func runDemo(w io.Writer, n int, cache srs.DirCache) error {
	if n < 1 || n > 1<<24 {
		return fmt.Errorf("demo: --constraints must be in [1, 2^24], got %d", n)
	}
	circuit := &r1cstest.Chain{N: n}
	fmt.Fprintf(w, "snarkpipe demo: circuit %s on %d CPUs (CPU backend)\n", circuit.ID(), runtime.NumCPU())

	t := time.Now()
	rec := r1cs.NewRecorder(r1cs.Capacity{Constraints: n + 1, Aux: n + 1, Inputs: 2, NonZeros: 3*n + 3})
	if err := circuit.Synthesize(rec); err != nil {
		return err
	}
	shape := rec.Finish()
	fmt.Fprintf(w, "  record      %8.3fs  rows %d, inputs %d, aux %d, domain 2^%d\n",
		time.Since(t).Seconds(), shape.NumConstraints, shape.NumInputs, shape.NumAux, log2(shape.DomainSize()))

	t = time.Now()
	path, err := devParamsFile(cache, string(circuit.ID()), shape)
	if err != nil {
		return err
	}
	params, err := groth16.ReadParams(path, groth16.ReadOptions{AllowDev: true})
	if err != nil {
		return err
	}
	defer params.Close()
	fmt.Fprintf(w, "  dev params  %8.3fs  %s\n", time.Since(t).Seconds(), path)

	be, err := cpu.New(cpu.DefaultConfig())
	if err != nil {
		return err
	}
	pk, err := groth16.NewProvingKey(be, params, shape.Counts())
	if err != nil {
		return err
	}
	defer pk.Close()

	t = time.Now()
	wit := r1cs.NewWitness(r1cs.Capacity{Constraints: n + 1, Aux: n + 1, Inputs: 2})
	if err := circuit.Synthesize(wit); err != nil {
		return err
	}
	fmt.Fprintf(w, "  witness     %8.3fs\n", time.Since(t).Seconds())

	proof, tm, err := pk.Prove(&shape.Density, groth16.AssignmentOf(wit), nil)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "  prove       %8.3fs  (quotient %.3fs, msm h %.3fs, l %.3fs, a %.3fs, b_g1 %.3fs, b_g2 %.3fs)\n",
		tm.Total.Seconds(), tm.Quotient.Seconds(), tm.MSMH.Seconds(), tm.MSML.Seconds(),
		tm.MSMA.Seconds(), tm.MSMB1.Seconds(), tm.MSMB2.Seconds())

	t = time.Now()
	if err := params.VK.Verify(&proof, wit.Inputs[1:]); err != nil {
		return fmt.Errorf("demo: proof did not verify: %w", err)
	}
	b := proof.Bytes()
	fmt.Fprintf(w, "  verify      %8.3fs  ok\n  proof       %x\n", time.Since(t).Seconds(), b[:])
	return nil
}

func log2(m int) int {
	k := 0
	for 1<<k < m {
		k++
	}
	return k
}
