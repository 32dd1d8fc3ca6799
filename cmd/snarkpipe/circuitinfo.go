package main

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/snarkpipe/snarkpipe/prover"
	"github.com/snarkpipe/snarkpipe/prover/r1cs"
	"github.com/snarkpipe/snarkpipe/sealer/porep"
	"github.com/snarkpipe/snarkpipe/sealer/post"
	"github.com/snarkpipe/snarkpipe/sealer/update"
	"github.com/snarkpipe/snarkpipe/types"
)

var circuitinfoCmd = &cli.Command{
	Name:  "circuitinfo",
	Usage: "count rows, public inputs, aux variables and A/B densities of the PoRep, PoSt and SnapDeals circuits (upstream circuitinfo)",
	Flags: []cli.Flag{
		&cli.StringSliceFlag{Name: "proof", Usage: "only the circuit of this registered proof (upstream name, update:<name> for a SnapDeals proof, or circuit id, e.g. StackedDrg32GiBV1_1, update:StackedDrg32GiBV1, wpost-2k, snap-32g); repeatable. Default: every circuit (32/64 GiB take minutes each)"},
	},
	Action: func(c *cli.Context) error {
		return runCircuitinfo(c.App.Writer, c.StringSlice("proof"))
	},
}

// updateNamePrefix qualifies the upstream names of update proofs, which are the same
// strings as the V1 seal proofs of their size ("StackedDrg2KiBV1").
const updateNamePrefix = "update:"

// infoCircuit is one circuit circuitinfo can count, with the names that select it.
type infoCircuit struct {
	names []string // circuit id first, then every registered proof using it
	blank func() (prover.Circuit, error)
}

func (c infoCircuit) id() string { return c.names[0] }

// infoCircuits lists the 20 circuits: PoRep, Winning, Window and SnapDeals for each sector
// size.
func infoCircuits() []infoCircuit {
	var out []infoCircuit
	byID := map[string]int{}
	add := func(id, name string, blank func() (prover.Circuit, error)) {
		if i, ok := byID[id]; ok {
			out[i].names = append(out[i].names, name)
			return
		}
		byID[id] = len(out)
		out = append(out, infoCircuit{names: []string{id, name}, blank: blank})
	}
	for _, s := range types.SealProofs() {
		cfg := porep.ConfigFor(&s)
		add(s.CircuitID, s.RustName, func() (prover.Circuit, error) { return porep.Blank(cfg) })
	}
	for _, p := range types.PoStProofs() {
		cfg := post.ConfigFor(&p)
		add(p.CircuitID, p.RustName, func() (prover.Circuit, error) { return post.Blank(cfg) })
	}
	for _, u := range types.UpdateProofs() {
		cfg := update.ConfigFor(&u)
		add(u.CircuitID, updateNamePrefix+u.RustName, func() (prover.Circuit, error) { return update.Blank(cfg) })
	}
	return out
}

func (c infoCircuit) matches(sel []string) bool {
	if len(sel) == 0 {
		return true
	}
	for _, s := range sel {
		for _, n := range c.names {
			if strings.EqualFold(s, n) {
				return true
			}
		}
	}
	return false
}

// count synthesizes the circuit into a Counter, which keeps only sizes and density bitmaps
// (a 32 GiB PoRep partition counts in about 100 MiB).
func (c infoCircuit) count() (r1cs.Counts, error) {
	circuit, err := c.blank()
	if err != nil {
		return r1cs.Counts{}, err
	}
	cs := r1cs.NewCounter()
	if err := circuit.Synthesize(cs); err != nil {
		return r1cs.Counts{}, fmt.Errorf("%s: %w", c.id(), err)
	}
	return cs.Counts(), nil
}

const circuitinfoHeader = "%-12s %12s %7s %12s %12s %8s %12s %8s %s\n"

// runCircuitinfo counts each selected circuit and prints one row per circuit.
func runCircuitinfo(w io.Writer, sel []string) error {
	found := false
	fmt.Fprintf(w, circuitinfoHeader, "circuit", "rows", "inputs", "aux", "a_aux", "b_input", "b_aux", "domain", "time")
	for _, ic := range infoCircuits() {
		if !ic.matches(sel) {
			continue
		}
		found = true
		t := time.Now()
		n, err := ic.count()
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "%-12s %12d %7d %12d %12d %8d %12d %8s %.1fs\n", ic.id(), n.NumConstraints, n.NumInputs, n.NumAux,
			n.AAux, n.BInput, n.BAux, fmt.Sprintf("2^%d", log2(n.DomainSize())), time.Since(t).Seconds())
	}
	if !found {
		return fmt.Errorf("no circuit named %q", sel)
	}
	return nil
}
