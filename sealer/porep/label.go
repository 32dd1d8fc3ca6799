package porep

import (
	"github.com/snarkpipe/snarkpipe/prover/r1cs"
	"github.com/snarkpipe/snarkpipe/sealer/gadget"
)

// totalParents is the number of parent labels hashed per label (upstream TOTAL_PARENTS).
const totalParents = 37

// labelCircuit recomputes the label of the challenged node in one layer (the labeling
// loop of Proof::synthesize plus create_label_circuit). Base parents read the current
// layer's row of their column, expander parents the previous layer's; each parent's value
// is decomposed once (to_bits_le, 256 rows) and its bits reused by every copy.
func labelCircuit(cs r1cs.ConstraintSystem, replicaIDBits []gadget.Boolean, drg, exp [][]gadget.AllocatedNum, layer int, node gadget.UInt64) (gadget.AllocatedNum, error) {
	parents := make([][]gadget.Boolean, 0, len(drg)+len(exp))
	for _, col := range drg {
		parents = append(parents, gadget.ReverseBitNumbering(col[layer-1].ToBitsLE(cs)))
	}
	if layer > 1 {
		for _, col := range exp {
			parents = append(parents, gadget.ReverseBitNumbering(col[layer-2].ToBitsLE(cs)))
		}
	}
	msg := make([]gadget.Boolean, 0, (2+totalParents)*256)
	msg = append(msg, replicaIDBits...)
	msg = gadget.UInt32Constant(uint32(layer)).AppendBitsBE(msg)
	msg = append(msg, node.BitsBE()...)
	for len(msg) < 512 {
		msg = append(msg, gadget.Constant(false))
	}
	for _, p := range expandParents(parents) {
		msg = append(msg, p...)
	}
	return gadget.Sha256HashCircuit(cs, msg)
}

// expandParents repeats the parents in hashing order: layer 1 has only the 6 base parents,
// cycled six times then the first once (6·6 + 1); later layers have 14, twice, then the
// first 9 (14 + 14 + 9).
func expandParents(parents [][]gadget.Boolean) [][]gadget.Boolean {
	out := make([][]gadget.Boolean, 0, totalParents)
	for len(out)+len(parents) <= totalParents {
		out = append(out, parents...)
	}
	return append(out, parents[:totalParents-len(out)]...)
}
