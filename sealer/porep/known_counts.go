package porep

import (
	"github.com/snarkpipe/snarkpipe/prover"
	"github.com/snarkpipe/snarkpipe/prover/r1cs"
)

// knownCounts are the counts of the production PoRep circuits, as testdata/counts.golden
// pins them (TestKnownCountsMatchGolden keeps the two equal; the golden test checks the
// file against a synthesis and spec §7.6). With them the pipeline refuses a circuit that
// can never fit a device before it spends minutes recording it (prover.SizedCircuit).
var knownCounts = map[prover.CircuitID]knownCircuit{
	"porep-2k":   {64, 2, 2, counts(2687921, 40, 2685673, 2674908, 1, 685521)},
	"porep-8m":   {262144, 2, 2, counts(3844929, 40, 3842449, 3814996, 1, 1011289)},
	"porep-512m": {16777216, 2, 2, counts(4423433, 40, 4420837, 4385040, 1, 1174173)},
	"porep-32g":  {1 << 30, 11, 18, counts(130278541, 328, 130169893, 129753292, 1, 33112281)},
	"porep-64g":  {1 << 31, 11, 18, counts(131185849, 328, 131076643, 130637542, 1, 33386943)},
}

// knownCircuit is a production circuit's configuration (what a Config must match for its
// counts to apply) and its counts.
type knownCircuit struct {
	nodes              uint64
	layers, challenges int
	counts             r1cs.Counts
}

func counts(rows, inputs, aux, aAux, bInput, bAux int) r1cs.Counts {
	return r1cs.Counts{Sizes: r1cs.Sizes{NumInputs: inputs, NumAux: aux, NumConstraints: rows}, AAux: aAux, BInput: bInput, BAux: bAux}
}

// KnownCounts returns the counts of a production circuit (prover.SizedCircuit); false for
// any other configuration (test circuits share ids of their own).
func (c *Circuit) KnownCounts() (r1cs.Counts, bool) {
	k, ok := knownCounts[c.Config.ID]
	if !ok || k.nodes != c.Config.Nodes || k.layers != c.Config.Layers || k.challenges != c.Config.Challenges {
		return r1cs.Counts{}, false
	}
	return k.counts, true
}

var _ prover.SizedCircuit = (*Circuit)(nil)
