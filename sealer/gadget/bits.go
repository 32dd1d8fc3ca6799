package gadget

import (
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/snarkpipe/snarkpipe/prover/r1cs"
)

// NumBits is the bit length of the BLS12-381 scalar field (bellperson NUM_BITS).
const NumBits = 255

// Capacity is the number of bits that always fit in a field element (bellperson
// CAPACITY): multipack chunks and MultiEq accumulators use it.
const Capacity = 254

// powersOfTwo[k] = 2^k in the field, for k < 256.
var powersOfTwo = func() [256]fr.Element {
	var p [256]fr.Element
	p[0].SetOne()
	for k := 1; k < len(p); k++ {
		p[k].Double(&p[k-1])
	}
	return p
}()

// ToBitsLE decomposes n into 255 bits, LSB first, without the range check
// (bellpepper to_bits_le / field_into_allocated_bits_le): 255 AllocatedBits, each with its
// boolean row, then the row 0 | 0 | Σ 2^k·b_k − n. 255 aux, 256 rows. The 256th bit, when a
// caller needs one, is Constant(false) added by the caller.
func (n AllocatedNum) ToBitsLE(cs r1cs.ConstraintSystem) []Boolean {
	values := FrBitsLE(&n.Value)
	bits := make([]Boolean, NumBits)
	for k := range bits {
		bits[k] = AllocBit(cs, values[k]).Is()
	}
	enforceUnpacking(cs, bits, n)
	return bits
}

// enforceUnpacking emits 0 | 0 | Σ 2^k·bits[k] − n (bits LSB first, all Is).
func enforceUnpacking(cs r1cs.ConstraintSystem, bits []Boolean, n AllocatedNum) {
	if s := rowFor(cs); s != nil {
		for k := range bits {
			s.c.AddTerm(bits[k].Var, &powersOfTwo[k])
		}
		s.c.Sub(n.Var)
		s.enforce(cs, "unpacking constraint")
	}
}

// pMinusOneBitsBE are the bits of p − 1 from bit 254 down to bit 0 (bit 255 is 0 and is
// skipped, as upstream skips leading zeros).
var pMinusOneBitsBE = func() [NumBits]bool {
	var m fr.Element
	m.SetOne()
	m.Neg(&m)
	le := FrBitsLE(&m)
	var be [NumBits]bool
	for i := range be {
		be[i] = le[NumBits-1-i]
	}
	return be
}()

// ToBitsLEStrict decomposes n into 255 bits with the range check that the bits encode a
// value ≤ p − 1 (bellpepper to_bits_le_strict). It walks the bits of p − 1 from the top:
// inside a run of ones it allocates plain bits; at the first zero after a run it ANDs the
// run (and the previous run's result) together, and each zero position allocates a bit
// that must be false while that AND is true. Then the unpacking row.
func (n AllocatedNum) ToBitsLEStrict(cs r1cs.ConstraintSystem) []Boolean {
	values := FrBitsLE(&n.Value)
	resultBE := make([]AllocatedBit, 0, NumBits)
	var lastRun AllocatedBit
	haveLastRun := false
	var currentRun []AllocatedBit
	for i, one := range pMinusOneBitsBE {
		v := values[NumBits-1-i]
		if one {
			b := AllocBit(cs, v)
			currentRun = append(currentRun, b)
			resultBE = append(resultBE, b)
			continue
		}
		if len(currentRun) > 0 {
			if haveLastRun {
				currentRun = append(currentRun, lastRun)
			}
			lastRun = karyAnd(cs, currentRun)
			haveLastRun = true
			currentRun = currentRun[:0]
		}
		resultBE = append(resultBE, AllocBitConditionally(cs, v, lastRun))
	}
	bits := make([]Boolean, NumBits)
	for k := range bits {
		bits[k] = resultBE[NumBits-1-k].Is()
	}
	enforceUnpacking(cs, bits, n)
	return bits
}

// karyAnd ANDs bits left to right: cur = v0, then cur = and(cur, v_i).
func karyAnd(cs r1cs.ConstraintSystem, v []AllocatedBit) AllocatedBit {
	cur := v[0]
	for _, b := range v[1:] {
		cur = And(cs, cur, b)
	}
	return cur
}

// ReverseBitNumbering is rfp's reverse_bit_numbering: pad with Constant(false) to a
// multiple of 8, then reverse the bits inside each 8-bit group. On the LE bits of an Fr
// it yields the SHA-256 message bits of the LE repr; Fr bit 255 becomes Constant(false).
func ReverseBitNumbering(bits []Boolean) []Boolean {
	n := (len(bits) + 7) / 8 * 8
	out := make([]Boolean, n)
	for i := range out {
		out[i] = Constant(false)
	}
	for i, b := range bits {
		out[i/8*8+7-i%8] = b
	}
	return out
}
