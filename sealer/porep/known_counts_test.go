package porep

import (
	"strings"
	"testing"

	"github.com/snarkpipe/snarkpipe/prover"
	"github.com/snarkpipe/snarkpipe/prover/r1cs"
	"github.com/snarkpipe/snarkpipe/sealer/internal/golden"
	"github.com/snarkpipe/snarkpipe/types"
)

// goldenLine is the golden file's line for counts n (the term counts aside, which the
// known counts do not carry: the first seven fields are compared).
func goldenLine(id prover.CircuitID, n r1cs.Counts) string {
	return golden.Counts{Counts: n}.Line(string(id))
}

// TestKnownCountsMatchGolden: every production circuit's counts equal the golden file's
// (which TestGoldenCounts checks against a synthesis), so the pipeline's refusal before
// recording uses exact sizes; and they apply to the production configurations only.
func TestKnownCountsMatchGolden(t *testing.T) {
	lines := readGolden(t)
	for id := types.RegisteredSealProof(0); id < 20; id++ {
		info, err := types.SealProof(id)
		if err != nil {
			continue
		}
		c := &Circuit{Config: ConfigFor(info)}
		n, ok := c.KnownCounts()
		if !ok {
			t.Errorf("seal proof %d (%s): no known counts", id, c.ID())
			continue
		}
		line := lines[string(c.ID())]
		if line == "" {
			t.Errorf("%s: not in %s", c.ID(), goldenPath)
			continue
		}
		prefix := strings.Join(strings.Fields(line)[:7], " ")
		want := strings.Join(strings.Fields(goldenLine(c.ID(), n))[:7], " ")
		if prefix != want {
			t.Errorf("%s: known counts\n %s\ngolden\n %s", c.ID(), want, prefix)
		}
	}
	test := &Circuit{Config: stackedTestConfig(8, 0, 0)}
	test.Config.ID = "porep-2k" // a test configuration under a production id
	if _, ok := test.KnownCounts(); ok {
		t.Error("known counts applied to a configuration that is not the production one")
	}
}
