package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/snarkpipe/snarkpipe/prover/r1cs"
	"github.com/snarkpipe/snarkpipe/types"
)

// circuitinfoAll counts every circuit against the golden file: the 32/64 GiB PoRep, Window
// PoSt and SnapDeals circuits take minutes each, so only with -circuitinfo.all.
var circuitinfoAll = flag.Bool("circuitinfo.all", false, "count every circuit (minutes per 32/64 GiB circuit) against testdata/circuitinfo.golden")

const circuitinfoGolden = "testdata/circuitinfo.golden"

// countKeys are the golden fields shared with the circuits' own golden files.
var countKeys = []string{"rows", "inputs", "aux", "a_aux", "b_input", "b_aux"}

// goldenLines reads a "name key=value ..." golden file into name → key → value.
func goldenLines(t *testing.T, path string) map[string]map[string]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.Fields(line)
		kv := map[string]string{}
		for _, f := range fields[1:] {
			k, v, ok := strings.Cut(f, "=")
			if !ok {
				t.Fatalf("%s: field %q of %s is not key=value", path, f, fields[0])
			}
			kv[k] = v
		}
		out[fields[0]] = kv
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// countFields renders counts the way the golden file writes them.
func countFields(n r1cs.Counts) map[string]string {
	return map[string]string{
		"rows": fmt.Sprint(n.NumConstraints), "inputs": fmt.Sprint(n.NumInputs), "aux": fmt.Sprint(n.NumAux),
		"a_aux": fmt.Sprint(n.AAux), "b_input": fmt.Sprint(n.BInput), "b_aux": fmt.Sprint(n.BAux),
		"domain": fmt.Sprintf("2^%d", log2(n.DomainSize())),
	}
}

// TestCircuitinfoGolden: the golden file has a line for each of the 20 circuits, its counts
// equal those of the circuits' own golden files (read in place), and its domain is the
// power of two bellperson uses for rows + inputs. snap-32g is upstream's 81,049,499 rows.
func TestCircuitinfoGolden(t *testing.T) {
	golden := goldenLines(t, circuitinfoGolden)
	cs := infoCircuits()
	if len(golden) != len(cs) {
		t.Errorf("golden has %d circuits, circuitinfo %d", len(golden), len(cs))
	}
	own := map[string]map[string]string{}
	for _, pkg := range []string{"porep", "post", "update"} {
		for name, kv := range goldenLines(t, filepath.Join("..", "..", "sealer", pkg, "testdata", "counts.golden")) {
			own[name] = kv
		}
	}
	for _, c := range cs {
		g, ok := golden[c.id()]
		if !ok {
			t.Errorf("%s: no golden line", c.id())
			continue
		}
		o, ok := own[c.id()]
		if !ok {
			t.Errorf("%s: not in its package's counts.golden", c.id())
			continue
		}
		for _, k := range countKeys {
			if g[k] != o[k] {
				t.Errorf("%s %s: circuitinfo golden %s, package golden %s", c.id(), k, g[k], o[k])
			}
		}
		var rows, inputs int
		fmt.Sscan(g["rows"], &rows)
		fmt.Sscan(g["inputs"], &inputs)
		if want := countFields(r1cs.Counts{Sizes: r1cs.Sizes{NumConstraints: rows, NumInputs: inputs}})["domain"]; g["domain"] != want {
			t.Errorf("%s domain %s, want %s", c.id(), g["domain"], want)
		}
	}
	if g := golden["snap-32g"]; g["rows"] != "81049499" || g["inputs"] != "5" {
		t.Errorf("snap-32g golden %v, want upstream's 81049499 rows and 5 inputs", g)
	}
}

// TestCircuitinfoCounts counts circuits live and compares every field with the golden
// file: under -short the 2 KiB Window, Winning and SnapDeals circuits (a few seconds),
// without -short every circuit up to 512 MiB, with -circuitinfo.all all 20.
func TestCircuitinfoCounts(t *testing.T) {
	golden := goldenLines(t, circuitinfoGolden)
	want := map[string]bool{"wpost-2k": true, "winning-2k": true, "snap-2k": true}
	for _, c := range infoCircuits() {
		large := strings.HasSuffix(c.id(), "-32g") || strings.HasSuffix(c.id(), "-64g")
		switch {
		case *circuitinfoAll:
		case want[c.id()]:
		case testing.Short() || large:
			continue
		}
		n, err := c.count()
		if err != nil {
			t.Fatal(err)
		}
		for k, v := range countFields(n) {
			if golden[c.id()][k] != v {
				t.Errorf("%s %s: counted %s, golden %s", c.id(), k, v, golden[c.id()][k])
			}
		}
	}
}

// TestCircuitinfo prints the rows of the selected circuits, by proof name or circuit id,
// with the spec §7.6/§8.3 and SnapDeals values; an unknown name is an error.
func TestCircuitinfo(t *testing.T) {
	var out bytes.Buffer
	if err := runCircuitinfo(&out, []string{"StackedDrgWindow2KiBV1", "winning-2k", "update:StackedDrg2KiBV1"}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"wpost-2k", "21866", "winning-2k", "90750", "133", "snap-2k", "1705039", "2^21"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	if strings.Contains(out.String(), "porep-2k") {
		t.Errorf("update:StackedDrg2KiBV1 selected the PoRep circuit:\n%s", out.String())
	}
	if err := runCircuitinfo(&out, []string{"no-such-circuit"}); err == nil {
		t.Error("unknown circuit accepted")
	}
}

// TestCircuitinfoListsEveryCircuit: 20 circuits (PoRep, Winning, Window, SnapDeals × 5
// sizes), and every registered seal, PoSt and update proof selects exactly one of them
// (update proofs by their qualified name: their upstream names equal the V1 seal names).
func TestCircuitinfoListsEveryCircuit(t *testing.T) {
	cs := infoCircuits()
	if len(cs) != 20 {
		t.Fatalf("%d circuits, want 20", len(cs))
	}
	var names []string
	for _, p := range types.SealProofs() {
		names = append(names, p.RustName)
	}
	for _, p := range types.PoStProofs() {
		names = append(names, p.RustName)
	}
	for _, p := range types.UpdateProofs() {
		names = append(names, updateNamePrefix+p.RustName, p.CircuitID)
	}
	for _, name := range names {
		if n := countMatches(cs, name); n != 1 {
			t.Errorf("%s selects %d circuits", name, n)
		}
	}
}

func countMatches(cs []infoCircuit, name string) int {
	n := 0
	for _, c := range cs {
		if c.matches([]string{name}) {
			n++
		}
	}
	return n
}
