package main

import (
	"fmt"
	"io"
	"os"

	"github.com/urfave/cli/v2"

	"github.com/snarkpipe/snarkpipe/prover/groth16"
)

// verifySub is one `verify` subcommand.
func verifySub(kind, usage string, flags []cli.Flag) *cli.Command {
	all := append(append([]cli.Flag{}, flags...), keyCLIFlags...)
	all = append(all,
		&cli.StringFlag{Name: "vk", Usage: "verifying key (.vk); overrides --params/--cache"},
		&cli.StringFlag{Name: "proof", Required: true, Usage: "proof bytes (192 per partition)"})
	return &cli.Command{
		Name: kind, Usage: usage, Flags: all,
		Action: func(c *cli.Context) error {
			st, err := statementOf(c, kind, false)
			if err != nil {
				return err
			}
			return runVerify(c.App.Writer, st, keyFlagsOf(c), c.String("proof"))
		},
	}
}

var verifyCmd = &cli.Command{
	Name:  "verify",
	Usage: "verify a SealCommit2, Winning or Window PoSt proof against public inputs derived from Filecoin data",
	Subcommands: []*cli.Command{
		verifySub("c2", "SealCommit2 proof of a C1 output's sector (uses its public values only)", c2Flags),
		verifySub("winning", "Winning PoSt proof (sector ids and comm_r from the vanilla files)", postFlags("winning")),
		verifySub("window", "Window PoSt proof (sector ids and comm_r from the vanilla files)", postFlags("window")),
	},
}

// runVerify checks every partition proof; any failure is an error.
func runVerify(w io.Writer, st *statement, k keyFlags, proofPath string) error {
	data, err := os.ReadFile(proofPath)
	if err != nil {
		return err
	}
	proofs, err := groth16.DecodeProofs(data)
	if err != nil {
		return err
	}
	if len(proofs) != len(st.inputs) {
		return fmt.Errorf("%w: %d proofs for %d partitions", errProofSize, len(proofs), len(st.inputs))
	}
	vk, err := loadVK(w, st, k)
	if err != nil {
		return err
	}
	for i := range proofs {
		if err := vk.Verify(&proofs[i], st.inputs[i]); err != nil {
			return fmt.Errorf("partition %d: %w", i, err)
		}
	}
	fmt.Fprintf(w, "  verify      ok (%d partition proofs)\n", len(proofs))
	return nil
}
