package porep

import (
	"flag"
	"github.com/snarkpipe/snarkpipe/sealer/internal/golden"
	"runtime"
	"testing"
	"time"

	"github.com/snarkpipe/snarkpipe/types"
)

var (
	update = flag.Bool("update", false, "rewrite testdata/counts.golden with the counts computed in this run")
	large  = flag.Bool("large", false, "also count the 32 GiB and 64 GiB circuits (minutes each)")
)

const goldenPath = "testdata/counts.golden"

// countCase is one circuit whose counts the golden file pins.
type countCase struct {
	name  string
	cfg   Config
	large bool // 32/64 GiB: only with -large, never under -short
	// spec holds rows, inputs (ONE included) and aux from spec §7.6 (confirmed or derived
	// there); 0 means "not given". These do not come from the golden file, so a wrong
	// golden update cannot hide a count change.
	spec [3]int
}

func sealConfig(t testing.TB, id int) Config {
	info, err := types.SealProof(types.RegisteredSealProof(id))
	if err != nil {
		t.Fatal(err)
	}
	return ConfigFor(info)
}

// stackedTestConfig is the configuration of rfp tests/stacked_circuit.rs: 2 layers, one
// challenge, 8 nodes per base tree.
func stackedTestConfig(base, sub, top int) Config {
	trees := uint64(1)
	for _, a := range []int{sub, top} {
		if a > 0 {
			trees *= uint64(a)
		}
	}
	return Config{ID: "stacked-test", Nodes: 8 * trees, Layers: 2, Challenges: 1, Tree: types.TreeShape{Base: base, Sub: sub, Top: top}}
}

func countCases(t testing.TB) []countCase {
	return []countCase{
		{name: "porep-2k", cfg: sealConfig(t, 5), spec: [3]int{2_687_921, 40, 2_685_673}},
		{name: "porep-8m", cfg: sealConfig(t, 6), spec: [3]int{3_844_929, 40, 3_842_449}},
		{name: "porep-512m", cfg: sealConfig(t, 7), spec: [3]int{4_423_433, 40, 4_420_837}},
		{name: "porep-32g", cfg: sealConfig(t, 8), large: true, spec: [3]int{130_278_541, 328, 130_169_893}},
		{name: "porep-64g", cfg: sealConfig(t, 9), large: true, spec: [3]int{131_185_849, 328, 131_076_643}},
		{name: "stacked-test-2-0-0", cfg: stackedTestConfig(2, 0, 0), spec: [3]int{1_206_212, 22, 0}},
		{name: "stacked-test-8-0-0", cfg: stackedTestConfig(8, 0, 0), spec: [3]int{1_199_620, 22, 0}},
		{name: "stacked-test-8-4-0", cfg: stackedTestConfig(8, 4, 0), spec: [3]int{1_296_576, 22, 0}},
		{name: "stacked-test-8-4-2", cfg: stackedTestConfig(8, 4, 2), spec: [3]int{1_346_982, 22, 0}},
	}
}

func readGolden(t *testing.T) map[string]string {
	t.Helper()
	lines, err := golden.Read(goldenPath, *update)
	if err != nil {
		t.Fatal(err)
	}
	return lines
}

func writeGolden(t *testing.T, lines map[string]string) {
	t.Helper()
	header := []string{
		"StackedDrg circuit counts: rows (without the per-input rows), inputs (ONE included), aux,",
		"density popcounts (A aux, B inputs, B aux) and non-zero terms per side (A with the per-input rows).",
		"Rewrite with: go test ./sealer/porep -run TestGoldenCounts -update [-large]",
	}
	if err := golden.Write(goldenPath, header, lines); err != nil {
		t.Fatal(err)
	}
}

// countBlank counts the blank circuit of cfg (sizes, densities, terms; nothing stored).
func countBlank(t testing.TB, cfg Config) golden.Counts {
	c, err := Blank(cfg)
	if err != nil {
		t.Fatal(err)
	}
	n, err := golden.Count(c)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestGoldenCounts pins every count of the PoRep circuits. The small sizes run always
// (about 2–3 s each); 32 and 64 GiB need -large (several minutes each, not under -short).
func TestGoldenCounts(t *testing.T) {
	golden := readGolden(t)
	for _, cc := range countCases(t) {
		t.Run(cc.name, func(t *testing.T) {
			if cc.large && (!*large || testing.Short()) {
				t.Skip("32/64 GiB count: run with -large (and without -short)")
			}
			start := time.Now()
			got := countBlank(t, cc.cfg)
			if cc.large {
				var ms runtime.MemStats
				runtime.ReadMemStats(&ms)
				t.Logf("%s counted in %v (heap sys %d MiB)", cc.name, time.Since(start), ms.HeapSys>>20)
			}
			if want := cc.spec; want[0] != got.NumConstraints || want[1] != got.NumInputs || (want[2] != 0 && want[2] != got.NumAux) {
				t.Errorf("counts %+v, spec wants rows=%d inputs=%d aux=%d", got, want[0], want[1], want[2])
			}
			if got.NumInputs != cc.cfg.NumInputs() {
				t.Errorf("%d inputs, Config.NumInputs says %d", got.NumInputs, cc.cfg.NumInputs())
			}
			line := got.Line(cc.name)
			if *update {
				golden[cc.name] = line
				return
			}
			if golden[cc.name] != line {
				t.Errorf("golden mismatch\n got: %s\nwant: %s", line, golden[cc.name])
			}
		})
	}
	if *update {
		writeGolden(t, golden)
	}
}

// TestCounts32GiBCuzk pins the 32 GiB circuit to cuzk's measurements of the real circuit
// (issue 6): A-aux density 129,753,292, B-aux 33,112,281, B-input 1, and non-zero terms
// A 309,405,051 / B 130,327,340 / C 282,656,500. Counting rule for the terms: after
// canonicalization (merged, zero coefficients dropped), and A includes bellperson's
// per-input rows (input_i in A): 309,404,723 circuit terms + 328. Needs -large (minutes).
func TestCounts32GiBCuzk(t *testing.T) {
	if !*large || testing.Short() {
		t.Skip("32 GiB count: run with -large (and without -short)")
	}
	got := countBlank(t, sealConfig(t, 8))
	if got.AAux != 129_753_292 || got.BAux != 33_112_281 || got.BInput != 1 {
		t.Errorf("densities a_aux=%d b_aux=%d b_input=%d, want 129753292 / 33112281 / 1", got.AAux, got.BAux, got.BInput)
	}
	if got.NonZerosA != 309_405_051 || got.NonZerosB != 130_327_340 || got.NonZerosC != 282_656_500 {
		t.Errorf("nnz A %d (with input rows) / B %d / C %d, cuzk recorded 309,405,051 / 130,327,340 / 282,656,500", got.NonZerosA, got.NonZerosB, got.NonZerosC)
	}
}
