package post

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
	large  = flag.Bool("large", false, "also count the 32 GiB and 64 GiB Window circuits (minutes each)")
)

const goldenPath = "testdata/counts.golden"

type countCase struct {
	name  string
	cfg   Config
	large bool
	// spec: rows, inputs (ONE included), aux from spec §8.3 (0 = not given there).
	spec [3]int
}

func postConfig(t testing.TB, id int) Config {
	info, err := types.PoStProof(types.RegisteredPoStProof(id))
	if err != nil {
		t.Fatal(err)
	}
	return ConfigFor(info)
}

// fallbackTestConfig is a configuration of rfp tests/fallback_circuit.rs: 64 leaves per
// base tree.
func fallbackTestConfig(base, sub, top, sectors, challenges int) Config {
	nodes := uint64(64)
	for _, a := range []int{sub, top} {
		if a > 0 {
			nodes *= uint64(a)
		}
	}
	return Config{ID: "fallback-test", Nodes: nodes, Tree: types.TreeShape{Base: base, Sub: sub, Top: top}, ChallengeCount: challenges, SectorCount: sectors}
}

func countCases(t testing.TB) []countCase {
	return []countCase{
		{name: "winning-2k", cfg: postConfig(t, 0), spec: [3]int{90_750, 133, 91_674}},
		{name: "winning-8m", cfg: postConfig(t, 1), spec: [3]int{230_670, 133, 233_442}},
		{name: "winning-512m", cfg: postConfig(t, 2), spec: [3]int{300_630, 133, 304_326}},
		{name: "winning-32g", cfg: postConfig(t, 3), spec: [3]int{370_590, 133, 375_210}},
		{name: "winning-64g", cfg: postConfig(t, 4), spec: [3]int{391_314, 133, 396_000}},
		{name: "wpost-2k", cfg: postConfig(t, 5), spec: [3]int{21_866, 23, 22_128}},
		{name: "wpost-8m", cfg: postConfig(t, 6), spec: [3]int{64_266, 23, 65_088}},
		{name: "wpost-512m", cfg: postConfig(t, 7), spec: [3]int{85_466, 23, 86_568}},
		{name: "wpost-32g", cfg: postConfig(t, 8), large: true, spec: [3]int{125_279_217, 25_840, 126_902_376}},
		{name: "wpost-64g", cfg: postConfig(t, 9), large: true, spec: [3]int{129_887_900, 25_301, 131_500_200}},
		{name: "fallback-test-8-0-0-3x5", cfg: fallbackTestConfig(8, 0, 0, 3, 5), spec: [3]int{16_869, 19, 0}},
		{name: "fallback-test-8-4-0-3x5", cfg: fallbackTestConfig(8, 4, 0, 3, 5), spec: [3]int{22_674, 19, 0}},
		{name: "fallback-test-8-4-2-3x5", cfg: fallbackTestConfig(8, 4, 2, 3, 5), spec: [3]int{27_384, 19, 0}},
		{name: "fallback-test-8-0-0-2x5", cfg: fallbackTestConfig(8, 0, 0, 2, 5), spec: [3]int{11_246, 13, 0}},
		{name: "fallback-bench-32g-8-0-0-5x10", cfg: Config{ID: "fallback-bench", Nodes: 1 << 30, Tree: types.TreeShape{Base: 8}, ChallengeCount: 10, SectorCount: 5}, spec: [3]int{266_665, 56, 0}},
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
		"Fallback PoSt circuit counts: rows (without the per-input rows), inputs (ONE included), aux,",
		"density popcounts (A aux, B inputs, B aux) and non-zero terms per side (A with the per-input rows).",
		"Rewrite with: go test ./sealer/post -run TestGoldenCounts -update [-large]",
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

// TestGoldenCounts pins every Fallback PoSt count; the 32/64 GiB Window partitions need
// -large (a few minutes each, not under -short).
func TestGoldenCounts(t *testing.T) {
	golden := readGolden(t)
	for _, cc := range countCases(t) {
		t.Run(cc.name, func(t *testing.T) {
			if cc.large && (!*large || testing.Short()) {
				t.Skip("32/64 GiB Window count: run with -large (and without -short)")
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
