package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/urfave/cli/v2"

	"github.com/snarkpipe/snarkpipe/prover/groth16"
)

// verifySub is one `verify` subcommand.
func verifySub(kind, usage string, flags []cli.Flag) *cli.Command {
	all := append(append([]cli.Flag{}, flags...),
		&cli.StringFlag{Name: "params", Usage: "bellperson .params file whose verifying key to use"},
		&cli.StringFlag{Name: "cache", Usage: "directory of dev parameters made by prove, demo or daemon --dev (default: user cache dir/snarkpipe/dev-params)"},
		&cli.StringFlag{Name: "vk", Usage: "verifying key (.vk); default: the official .vk in $FIL_PROOFS_PARAMETER_CACHE, or the dev parameters in --cache that prove or daemon --dev made (verify never makes keys)"},
		&cli.StringFlag{Name: "proof", Required: true, Usage: "proof bytes (192 per partition)"},
		inputsOutFlag)
	return &cli.Command{
		Name: kind, Usage: usage, Flags: all, Description: publicInputsDoc,
		Action: func(c *cli.Context) error {
			st, err := statementOf(c, kind, false)
			if err != nil {
				return err
			}
			if p := c.String("inputs-out"); p != "" {
				if err := writePublicInputs(p, st); err != nil {
					return err
				}
				fmt.Fprintf(c.App.Writer, "  inputs      -> %s\n", p)
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

// runVerify checks every partition proof against the keys findVerifyingKeys finds; the
// proof is valid when one key accepts every partition. Nothing is generated.
func runVerify(w io.Writer, st *statement, k keyFlags, proofPath string) error {
	keys, err := findVerifyingKeys(st, k)
	if err != nil {
		return err
	}
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
	var errs []error
	for _, key := range keys {
		err := verifyAll(key.vk, proofs, st)
		if err == nil {
			fmt.Fprintf(w, "  verify      ok (%d partition proofs) against %s\n", len(proofs), key.from)
			return nil
		}
		errs = append(errs, fmt.Errorf("against %s: %w", key.from, err))
	}
	return errors.Join(errs...)
}

func verifyAll(vk *groth16.VerifyingKey, proofs []groth16.Proof, st *statement) error {
	for i := range proofs {
		if err := vk.Verify(&proofs[i], st.inputs[i]); err != nil {
			return fmt.Errorf("partition %d: %w", i, err)
		}
	}
	return nil
}
