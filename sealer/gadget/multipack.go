package gadget

import (
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/snarkpipe/snarkpipe/prover/r1cs"
)

// PackIntoInputs exposes bits as public inputs (bellperson multipack::pack_into_inputs):
// for each chunk of 254 bits, in order, input i = Σ 2^k·bit_k and the row
// Σ 2^k·lc(bit_k) | ONE | i. It returns the inputs' values.
func PackIntoInputs(cs r1cs.ConstraintSystem, bits []Boolean) []fr.Element {
	var values []fr.Element
	for len(bits) > 0 {
		chunk := bits[:min(len(bits), Capacity)]
		bits = bits[len(chunk):]
		v := packedValue(chunk)
		in := cs.AllocInput(v)
		if s := rowFor(cs); s != nil {
			packInto(&s.a, chunk)
			s.b.Add(r1cs.One)
			s.c.Add(in)
			s.enforce(cs, "packing constraint")
		}
		values = append(values, v)
	}
	return values
}

// PackBits packs the first 254 bits into one aux variable (rfp multipack::pack_bits):
// aux n, row Σ 2^k·lc(bit_k) | ONE | n.
func PackBits(cs r1cs.ConstraintSystem, bits []Boolean) AllocatedNum {
	bits = bits[:min(len(bits), Capacity)]
	n := AllocNum(cs, packedValue(bits))
	if s := rowFor(cs); s != nil {
		packInto(&s.a, bits)
		s.b.Add(r1cs.One)
		s.c.Add(n.Var)
		s.enforce(cs, "packing constraint")
	}
	return n
}

// packInto appends Σ 2^k·lc(bits[k]) to lc.
func packInto(lc *r1cs.LC, bits []Boolean) {
	for k, b := range bits {
		b.AddToLC(lc, &powersOfTwo[k])
	}
}

// packedValue is Σ 2^k·bits[k].
func packedValue(bits []Boolean) fr.Element {
	var v fr.Element
	for k, b := range bits {
		if b.Value {
			v.Add(&v, &powersOfTwo[k])
		}
	}
	return v
}

// PackBitsValue is the native twin of PackBits and of one PackIntoInputs chunk: the
// value Σ 2^k·bits[k] over the first 254 bits.
func PackBitsValue(bits []bool) fr.Element {
	var v fr.Element
	for k, b := range bits[:min(len(bits), Capacity)] {
		if b {
			v.Add(&v, &powersOfTwo[k])
		}
	}
	return v
}
