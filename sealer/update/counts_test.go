package update

import (
	"flag"
	"fmt"
	"github.com/snarkpipe/snarkpipe/sealer/internal/golden"
	"testing"
	"time"

	"github.com/snarkpipe/snarkpipe/prover/r1cs"
	"github.com/snarkpipe/snarkpipe/types"
)

var (
	updateGolden = flag.Bool("update", false, "rewrite testdata/counts.golden with the counts computed in this run")
	large        = flag.Bool("large", false, "also count the 512 MiB, 32 GiB and 64 GiB circuits (minutes each)")
)

const goldenPath = "testdata/counts.golden"

type countCase struct {
	name string
	cfg  Config
	// short: counted under -short; large: only with -large.
	short, large bool
	// upstreamRows is the row count asserted by rust-fil-proofs
	// storage-proofs-update/tests/circuit.rs (0 = not asserted upstream).
	upstreamRows int
}

func productionConfig(t testing.TB, id int) Config {
	info, err := types.UpdateProof(types.RegisteredUpdateProof(id))
	if err != nil {
		t.Fatal(err)
	}
	return ConfigFor(info)
}

func testConfig(t testing.TB, kib uint64) Config {
	cfg, err := TestConfig(kib << 10)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

func countCases(t testing.TB) []countCase {
	return []countCase{
		{name: "test-1k", cfg: testConfig(t, 1), short: true, upstreamRows: 1_248_389},
		{name: "test-2k", cfg: testConfig(t, 2), upstreamRows: 1_705_039},
		{name: "test-4k", cfg: testConfig(t, 4), upstreamRows: 2_165_109},
		{name: "test-8k", cfg: testConfig(t, 8), upstreamRows: 2_620_359},
		{name: "test-16k", cfg: testConfig(t, 16), upstreamRows: 6_300_021},
		{name: "test-32k", cfg: testConfig(t, 32), upstreamRows: 6_760_091},
		{name: "snap-2k", cfg: productionConfig(t, 0), short: true, upstreamRows: 1_705_039},
		{name: "snap-8m", cfg: productionConfig(t, 1)},
		{name: "snap-512m", cfg: productionConfig(t, 2), large: true},
		{name: "snap-32g", cfg: productionConfig(t, 3), large: true, upstreamRows: 81_049_499},
		{name: "snap-64g", cfg: productionConfig(t, 4), large: true},
	}
}

func formatCounts(name string, c r1cs.Counts) string {
	return fmt.Sprintf("%s rows=%d inputs=%d aux=%d a_aux=%d b_input=%d b_aux=%d",
		name, c.NumConstraints, c.NumInputs, c.NumAux, c.AAux, c.BInput, c.BAux)
}

func countBlank(t testing.TB, cfg Config) r1cs.Counts {
	c, err := Blank(cfg)
	if err != nil {
		t.Fatal(err)
	}
	cs := r1cs.NewCounter()
	if err := c.Synthesize(cs); err != nil {
		t.Fatal(err)
	}
	return cs.Counts()
}

// TestGoldenCounts pins every EmptySectorUpdate count (rows, inputs, aux, densities) in
// testdata/counts.golden and checks the rows upstream asserts. Under -short only the 1 KiB
// test circuit and 2 KiB are counted; 512 MiB, 32 GiB and 64 GiB need -large.
func TestGoldenCounts(t *testing.T) {
	golden := readGolden(t)
	for _, cc := range countCases(t) {
		t.Run(cc.name, func(t *testing.T) {
			if cc.large && (!*large || testing.Short()) {
				t.Skip("512 MiB / 32 GiB / 64 GiB count: run with -large (and without -short)")
			}
			if testing.Short() && !cc.short {
				t.Skip("counted without -short")
			}
			start := time.Now()
			got := countBlank(t, cc.cfg)
			t.Logf("%s counted in %v", cc.name, time.Since(start))
			if cc.upstreamRows != 0 && got.NumConstraints != cc.upstreamRows {
				t.Errorf("%d rows, upstream asserts %d", got.NumConstraints, cc.upstreamRows)
			}
			if got.NumInputs != NumInputs {
				t.Errorf("%d inputs, want %d", got.NumInputs, NumInputs)
			}
			line := formatCounts(cc.name, got)
			if *updateGolden {
				golden[cc.name] = line
				return
			}
			if golden[cc.name] != line {
				t.Errorf("golden mismatch\n got: %s\nwant: %s", line, golden[cc.name])
			}
		})
	}
	if *updateGolden {
		writeGolden(t, golden)
	}
}

func readGolden(t *testing.T) map[string]string {
	t.Helper()
	lines, err := golden.Read(goldenPath, *updateGolden)
	if err != nil {
		t.Fatal(err)
	}
	return lines
}

func writeGolden(t *testing.T, lines map[string]string) {
	t.Helper()
	header := []string{
		"EmptySectorUpdate circuit counts: rows (without the per-input rows), inputs (ONE included), aux,",
		"density popcounts (A aux, B inputs, B aux). Upstream asserts the rows of test-1k..test-32k,",
		"snap-2k (= test-2k) and snap-32g; the other rows are derived by this synthesis.",
		"Rewrite with: go test ./sealer/update -run TestGoldenCounts -update [-large]",
	}
	if err := golden.Write(goldenPath, header, lines); err != nil {
		t.Fatal(err)
	}
}
