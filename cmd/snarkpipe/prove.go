package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/urfave/cli/v2"

	"github.com/snarkpipe/snarkpipe/prover"
	"github.com/snarkpipe/snarkpipe/prover/backend/cpu"
	"github.com/snarkpipe/snarkpipe/prover/groth16"
	"github.com/snarkpipe/snarkpipe/prover/r1cs"
)

var keyCLIFlags = []cli.Flag{
	&cli.StringFlag{Name: "params", Usage: "bellperson .params file (default: dev parameters from --cache, made on first use)"},
	&cli.StringFlag{Name: "cache", Usage: "directory of dev parameters, shared with daemon --dev and demo (default: user cache dir/snarkpipe/dev-params)"},
}

var c2Flags = []cli.Flag{&cli.StringFlag{Name: "c1", Required: true, Usage: "C1 output (JSON, or lotus' Commit2In wrapper)"}}

// postFlags are the flags of a Winning or Window PoSt statement; the example proof name
// is one of that kind.
func postFlags(kind string) []cli.Flag {
	example := map[string]string{"winning": "StackedDrgWinning32GiBV1", "window": "StackedDrgWindow32GiBV1_2"}[kind]
	return []cli.Flag{
		&cli.StringFlag{Name: "post-proof", Required: true, Usage: "registered " + kind + " PoSt proof: id or upstream name, e.g. " + example},
		&cli.StringFlag{Name: "randomness", Required: true, Usage: "32-byte challenge randomness: 64 hex digits (as seal prints it) or base64 (as in a postpub.json); the top two bits are cleared, as lotus does"},
		&cli.StringSliceFlag{Name: "vanilla", Required: true, Usage: "vanilla sector proof file(s), bincode; in sector order"},
	}
}

func keyFlagsOf(c *cli.Context) keyFlags {
	return keyFlags{params: c.String("params"), vk: c.String("vk"), cache: c.String("cache")}
}

// proveSub is one `prove` subcommand: kind selects how the statement is built.
func proveSub(kind, usage string, flags []cli.Flag) *cli.Command {
	all := append(append([]cli.Flag{}, flags...), keyCLIFlags...)
	all = append(all,
		&cli.StringFlag{Name: "out", Required: true, Usage: "where to write the proof bytes (192 per partition)"},
		&cli.StringFlag{Name: "vk-out", Usage: "also write the verifying key (.vk) there"},
		inputsOutFlag)
	all = append(all, daemonProveFlags...)
	return &cli.Command{
		Name: kind, Usage: usage, Flags: all, Description: publicInputsDoc,
		Action: func(c *cli.Context) error {
			if c.IsSet("daemon") {
				if c.IsSet("vk-out") || c.IsSet("inputs-out") {
					return errors.New("--vk-out and --inputs-out need the keys here, not on the daemon: write them with snarkpipe verify " + kind + " ... --inputs-out FILE")
				}
				return proveViaDaemon(c, kind)
			}
			st, err := statementOf(c, kind, true)
			if err != nil {
				return err
			}
			return runProve(c.App.Writer, st, keyFlagsOf(c), proveOutputs{proof: c.String("out"), vk: c.String("vk-out"), inputs: c.String("inputs-out")})
		},
	}
}

func statementOf(c *cli.Context, kind string, withCircuits bool) (*statement, error) {
	if kind == "c2" {
		return c2Statement(c.String("c1"), withCircuits)
	}
	return postStatement(kind, c.String("post-proof"), c.String("randomness"), c.StringSlice("vanilla"), withCircuits)
}

var proveCmd = &cli.Command{
	Name:  "prove",
	Usage: "prove in-process on the CPU backend: SealCommit2, Winning or Window PoSt",
	Subcommands: []*cli.Command{
		proveSub("c2", "SealCommit2: every partition of a C1 output", c2Flags),
		proveSub("winning", "Winning PoSt of one sector's vanilla proof", postFlags("winning")),
		proveSub("window", "Window PoSt of the sectors' vanilla proofs (every partition)", postFlags("window")),
	},
}

var inputsOutFlag = &cli.StringFlag{Name: "inputs-out", Usage: "also write the public inputs there, as JSON (format: see the command's description)"}

// proveOutputs are the files prove writes: the proof, and optionally its verifying key
// and public inputs.
type proveOutputs struct {
	proof, vk, inputs string
}

// runProve proves every partition, checks that each circuit inputizes exactly the public
// inputs derived from the Filecoin data, verifies each proof against the key before
// writing anything, and writes the concatenated proofs.
func runProve(w io.Writer, st *statement, k keyFlags, out proveOutputs) error {
	shape, params, err := loadParams(w, st, k)
	if err != nil {
		return err
	}
	defer params.Close()
	be, err := cpu.New(cpu.DefaultConfig())
	if err != nil {
		return err
	}
	pk, err := groth16.NewProvingKey(be, params, shape.Counts())
	if err != nil {
		return err
	}
	defer pk.Close()
	var proofBytes []byte
	for i, c := range st.circuits {
		t := time.Now()
		as, err := assignment(c, shape)
		if err != nil {
			return fmt.Errorf("partition %d: %w", i, err)
		}
		if err := sameInputs(as.Inputs[1:], st.inputs[i]); err != nil {
			return fmt.Errorf("partition %d: the vanilla proof does not prove these public inputs: %w", i, err)
		}
		fmt.Fprintf(w, "  witness     %8.3fs  partition %d\n", time.Since(t).Seconds(), i)
		proof, tm, err := pk.Prove(&shape.Density, as, nil)
		if err != nil {
			return err
		}
		if err := params.VK.Verify(&proof, st.inputs[i]); err != nil {
			return fmt.Errorf("partition %d: proof does not verify, nothing written: %w", i, err)
		}
		fmt.Fprintf(w, "  prove       %8.3fs  partition %d, verified\n", tm.Total.Seconds(), i)
		b := proof.Bytes()
		proofBytes = append(proofBytes, b[:]...)
	}
	if err := os.WriteFile(out.proof, proofBytes, 0o644); err != nil {
		return err
	}
	fmt.Fprintf(w, "  proof       %d bytes -> %s\n", len(proofBytes), out.proof)
	return writeProveExtras(w, st, &params.VK, out)
}

// writeProveExtras writes the verifying key and public inputs when asked, and otherwise
// says how to get them: whoever checks the proof elsewhere needs both.
func writeProveExtras(w io.Writer, st *statement, vk *groth16.VerifyingKey, out proveOutputs) error {
	if out.vk != "" {
		if err := writeVK(out.vk, vk); err != nil {
			return err
		}
		fmt.Fprintf(w, "  vk          -> %s\n", out.vk)
	}
	if out.inputs != "" {
		if err := writePublicInputs(out.inputs, st); err != nil {
			return err
		}
		fmt.Fprintf(w, "  inputs      -> %s\n", out.inputs)
	}
	if out.vk == "" || out.inputs == "" {
		fmt.Fprintln(w, "  (--vk-out FILE writes the verifying key and --inputs-out FILE the public inputs, to check the proof with another verifier)")
	}
	return nil
}

func writeVK(path string, vk *groth16.VerifyingKey) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := vk.WriteTo(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// assignment fills the witness with the circuit's fast generator when it has one (then
// evaluates A·z, B·z, C·z on the recorded shape), else with the generic builder.
func assignment(c prover.Circuit, shape *r1cs.Shape) (groth16.Assignment, error) {
	f, ok := c.(prover.WitnessFiller)
	if !ok {
		wit := r1cs.NewWitness(r1cs.Capacity{Inputs: shape.NumInputs, Aux: shape.NumAux, Constraints: shape.NumConstraints})
		if err := c.Synthesize(wit); err != nil {
			return groth16.Assignment{}, err
		}
		wit.Finish()
		return groth16.AssignmentOf(wit), nil
	}
	z := make([]fr.Element, shape.NumInputs+shape.NumAux)
	inputs, aux := z[:shape.NumInputs:shape.NumInputs], z[shape.NumInputs:]
	inputs[0].SetOne()
	if err := f.FillWitness(inputs, aux); err != nil {
		return groth16.Assignment{}, err
	}
	rows := shape.Rows()
	a, b, cc := make([]fr.Element, rows), make([]fr.Element, rows), make([]fr.Element, rows)
	if err := shape.Eval(z, a, b, cc, 0); err != nil {
		return groth16.Assignment{}, err
	}
	return groth16.Assignment{Inputs: inputs, Aux: aux, A: a, B: b, C: cc}, nil
}

func sameInputs(got, want []fr.Element) error {
	if len(got) != len(want) {
		return fmt.Errorf("%d inputs, want %d", len(got), len(want))
	}
	for i := range got {
		if got[i] != want[i] {
			return fmt.Errorf("input %d is %s, want %s", i+1, got[i].String(), want[i].String())
		}
	}
	return nil
}

var errProofSize = errors.New("proof file length does not match the partitions")
