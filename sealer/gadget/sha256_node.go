package gadget

import (
	"github.com/snarkpipe/snarkpipe/prover/r1cs"
)

// Filecoin's SHA-256 hashing of field elements in circuits (rfp filecoin-hashers
// sha256.rs, spec §4.4–§4.5).

// Sha256HashCircuit is rfp hash_circuit: SHA-256 of the big-endian message bits, then
// the digest bits reversed inside each byte (LE bits over LE bytes), the first 254 packed
// into one aux variable. Its value equals the trimmed digest read as LE (Sha254).
func Sha256HashCircuit(cs r1cs.ConstraintSystem, msg []Boolean) (AllocatedNum, error) {
	be, err := Sha256(cs, msg)
	if err != nil {
		return AllocatedNum{}, err
	}
	return PackBits(cs, ReverseBitNumbering(be)), nil
}

// Sha256MultiLeafCircuit is rfp hash_multi_leaf_circuit for the SHA-256 hasher: for each
// leaf in order, to_bits_le (255 aux, 256 rows), padded with Constant(false) to 256 and
// bit-reversed inside each byte, so the message is the leaves' LE reprs; then
// Sha256HashCircuit. For the tree-D node (two leaves): 512 + 44,866 + 1 = 45,379 rows.
func Sha256MultiLeafCircuit(cs r1cs.ConstraintSystem, leaves []AllocatedNum) (AllocatedNum, error) {
	msg := make([]Boolean, 0, 256*len(leaves))
	for _, leaf := range leaves {
		msg = append(msg, ReverseBitNumbering(leaf.ToBitsLE(cs))...)
	}
	return Sha256HashCircuit(cs, msg)
}

// Sha256NodeCircuit is the tree-D node hash (hash2_circuit / hash_multi_leaf_circuit over
// two children). Its native twin is NodeHashFr.
func Sha256NodeCircuit(cs r1cs.ConstraintSystem, left, right AllocatedNum) (AllocatedNum, error) {
	return Sha256MultiLeafCircuit(cs, []AllocatedNum{left, right})
}

// Sha256LeafBitsCircuit is rfp hash_leaf_bits_circuit: two bit strings (LE bits each),
// each padded with Constant(false) to a multiple of 8 and bit-reversed inside each byte,
// concatenated, then Sha256HashCircuit.
func Sha256LeafBitsCircuit(cs r1cs.ConstraintSystem, left, right []Boolean) (AllocatedNum, error) {
	msg := append(ReverseBitNumbering(left), ReverseBitNumbering(right)...)
	return Sha256HashCircuit(cs, msg)
}
