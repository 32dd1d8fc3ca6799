package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/urfave/cli/v2"

	"github.com/snarkpipe/snarkpipe/prover/groth16"
	"github.com/snarkpipe/snarkpipe/sealer/porep"
	"github.com/snarkpipe/snarkpipe/sealer/post"
	"github.com/snarkpipe/snarkpipe/types"
)

// paramSet is one official parameter set: a circuit, the proof types that use it, and
// what its public input count must be.
type paramSet struct {
	circuit    string
	proofTypes []string
	params, vk string // file names
	inputs     int    // public inputs including ONE (len(vk.IC))
	large      bool   // 32/64 GiB
}

// officialParamSets lists every provable circuit's official files, small sizes first.
func officialParamSets() []paramSet {
	byCircuit := map[string]*paramSet{}
	add := func(circuit, proofType, params, vk string, inputs int, large bool) {
		s, ok := byCircuit[circuit]
		if !ok {
			s = &paramSet{circuit: circuit, params: params, vk: vk, inputs: inputs, large: large}
			byCircuit[circuit] = s
		}
		s.proofTypes = append(s.proofTypes, proofType)
	}
	for _, p := range types.SealProofs() {
		if p.Provable {
			add(p.CircuitID, p.RustName, p.ParamFileName("params"), p.ParamFileName("vk"), porep.ConfigFor(&p).NumInputs(), p.SectorSize >= 32<<30)
		}
	}
	for _, p := range types.PoStProofs() {
		add(p.CircuitID, p.RustName, p.ParamFileName("params"), p.ParamFileName("vk"), post.ConfigFor(&p).NumInputs(), p.SectorSize >= 32<<30)
	}
	out := make([]paramSet, 0, len(byCircuit))
	for _, s := range byCircuit {
		out = append(out, *s)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].large != out[j].large {
			return !out[i].large
		}
		return out[i].circuit < out[j].circuit
	})
	return out
}

var paramDirFlag = &cli.StringFlag{Name: "dir", Usage: "parameter directory (default: $FIL_PROOFS_PARAMETER_CACHE, else /var/tmp/filecoin-proof-parameters)"}

var paramsCmd = &cli.Command{
	Name:  "params",
	Usage: "official parameter files: which exist, whether they are intact, and fetching them",
	Subcommands: []*cli.Command{paramsFetchCmd, {
		Name:  "list",
		Usage: "list each proof type's parameter files and whether they are present",
		Flags: []cli.Flag{paramDirFlag},
		Action: func(c *cli.Context) error {
			return listParams(c.App.Writer, paramDir(c))
		},
	}, {
		Name:  "check",
		Usage: "check present files: verifying keys parse and fit their circuit; digests against a parameters.json manifest",
		Flags: []cli.Flag{paramDirFlag,
			&cli.StringFlag{Name: "manifest", Usage: "upstream parameters.json (file name → digest); without it digests are not checked"},
			&cli.BoolFlag{Name: "large", Usage: "also hash the 32/64 GiB .params files (tens of GB each)"}},
		Action: func(c *cli.Context) error {
			return checkParams(c.App.Writer, paramDir(c), c.String("manifest"), c.Bool("large"))
		},
	}},
}

func paramDir(c *cli.Context) string {
	if d := c.String("dir"); d != "" {
		return d
	}
	return paramDirFromEnv()
}

func listParams(w io.Writer, dir string) error {
	fmt.Fprintf(w, "parameter directory %s\n", dir)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "circuit\tparams\tvk\tproof types")
	missing := 0
	for _, s := range officialParamSets() {
		p, v := presence(dir, s.params), presence(dir, s.vk)
		if p != "present" || v != "present" {
			missing++
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", s.circuit, p, v, strings.Join(s.proofTypes, " "))
	}
	tw.Flush()
	fmt.Fprintf(w, "%d of %d circuits have both files\n", len(officialParamSets())-missing, len(officialParamSets()))
	return nil
}

func presence(dir, name string) string {
	fi, err := os.Stat(filepath.Join(dir, name))
	if err != nil {
		return "MISSING"
	}
	if fi.Size() == 0 {
		return "EMPTY"
	}
	return "present"
}

// checkParams checks every present file and says exactly what is missing or wrong; it
// fails when anything is.
func checkParams(w io.Writer, dir, manifestPath string, large bool) error {
	manifest := map[string]struct{ Digest string }{}
	if manifestPath != "" {
		b, err := os.ReadFile(manifestPath)
		if err != nil {
			return err
		}
		if err := json.Unmarshal(b, &manifest); err != nil {
			return fmt.Errorf("manifest %s: %w", manifestPath, err)
		}
	}
	var problems []string
	report := func(format string, args ...any) {
		msg := fmt.Sprintf(format, args...)
		problems = append(problems, msg)
		fmt.Fprintln(w, "  "+msg)
	}
	for _, s := range officialParamSets() {
		fmt.Fprintf(w, "%s (%s)\n", s.circuit, strings.Join(s.proofTypes, ", "))
		for _, name := range []string{s.vk, s.params} {
			path := filepath.Join(dir, name)
			if _, err := os.Stat(path); err != nil {
				report("missing %s", path)
				continue
			}
			if name == s.vk {
				vk, err := groth16.ReadVerifyingKeyFile(path)
				if err != nil {
					report("unreadable verifying key %s: %v", path, err)
					continue
				}
				if len(vk.IC) != s.inputs {
					report("%s has %d public inputs, the %s circuit has %d", path, len(vk.IC), s.circuit, s.inputs)
					continue
				}
			}
			want, known := manifest[name]
			switch {
			case !known && manifestPath != "":
				report("%s is not in the manifest", name)
			case !known:
				fmt.Fprintf(w, "  ok (digest not checked) %s\n", name)
			case name == s.params && s.large && !large:
				fmt.Fprintf(w, "  ok (present; digest skipped, use --large) %s\n", name)
			default:
				got, err := groth16.FileDigest(path)
				if err != nil {
					report("reading %s: %v", path, err)
				} else if got != want.Digest {
					report("%s digest %s, manifest says %s", path, got, want.Digest)
				} else {
					fmt.Fprintf(w, "  ok %s\n", name)
				}
			}
		}
	}
	if len(problems) > 0 {
		return fmt.Errorf("%d problems in %s (first: %s)", len(problems), dir, problems[0])
	}
	fmt.Fprintln(w, "all parameter files present and intact")
	return nil
}
