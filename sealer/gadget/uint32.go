package gadget

import (
	"math/bits"

	"github.com/snarkpipe/snarkpipe/prover/r1cs"
)

// UInt32 is 32 Booleans, least significant first (bellperson gadgets/uint32.rs).
type UInt32 struct {
	Bits  [32]Boolean
	Value uint32
}

// UInt32Constant returns 32 constants.
func UInt32Constant(v uint32) UInt32 {
	u := UInt32{Value: v}
	for i := range u.Bits {
		u.Bits[i] = Constant(v>>i&1 == 1)
	}
	return u
}

// AllocUInt32 allocates 32 bits, LSB first.
func AllocUInt32(cs r1cs.ConstraintSystem, v uint32) UInt32 {
	u := UInt32{Value: v}
	for i := range u.Bits {
		u.Bits[i] = AllocBit(cs, v>>i&1 == 1).Is()
	}
	return u
}

// UInt32FromBitsBE reads 32 bits, most significant first; be must hold at least 32.
func UInt32FromBitsBE(be []Boolean) UInt32 {
	var u UInt32
	for i := range 32 {
		b := be[31-i]
		u.Bits[i] = b
		if b.Value {
			u.Value |= 1 << i
		}
	}
	return u
}

// AppendBitsBE appends the 32 bits most significant first (into_bits_be).
func (u UInt32) AppendBitsBE(dst []Boolean) []Boolean {
	for i := 31; i >= 0; i-- {
		dst = append(dst, u.Bits[i])
	}
	return dst
}

// Rotr rotates right by n: bit i of the result is bit (i+n) mod 32. No row.
func (u UInt32) Rotr(n int) UInt32 {
	n %= 32
	var r UInt32
	for i := range 32 {
		r.Bits[i] = u.Bits[(i+n)%32]
	}
	r.Value = bits.RotateLeft32(u.Value, -n)
	return r
}

// Shr shifts right by n, filling with Constant(false). No row.
func (u UInt32) Shr(n int) UInt32 {
	n %= 32
	var r UInt32
	for i := range 32 {
		if i+n < 32 {
			r.Bits[i] = u.Bits[i+n]
		} else {
			r.Bits[i] = Constant(false)
		}
	}
	r.Value = u.Value >> n
	return r
}

// Xor is bitwise Boolean xor, LSB first.
func (u UInt32) Xor(cs r1cs.ConstraintSystem, o UInt32) UInt32 {
	r := UInt32{Value: u.Value ^ o.Value}
	for i := range 32 {
		r.Bits[i] = BoolXor(cs, u.Bits[i], o.Bits[i])
	}
	return r
}

// UInt32Ch is bitwise Sha256Ch, LSB first.
func UInt32Ch(cs r1cs.ConstraintSystem, a, b, c UInt32) UInt32 {
	r := UInt32{Value: (a.Value & b.Value) ^ (^a.Value & c.Value)}
	for i := range 32 {
		r.Bits[i] = Sha256Ch(cs, a.Bits[i], b.Bits[i], c.Bits[i])
	}
	return r
}

// UInt32Maj is bitwise Sha256Maj, LSB first.
func UInt32Maj(cs r1cs.ConstraintSystem, a, b, c UInt32) UInt32 {
	r := UInt32{Value: (a.Value & b.Value) ^ (a.Value & c.Value) ^ (b.Value & c.Value)}
	for i := range 32 {
		r.Bits[i] = Sha256Maj(cs, a.Bits[i], b.Bits[i], c.Bits[i])
	}
	return r
}

// AddMany adds 2 to 10 operands modulo 2^32 (bellperson UInt32::addmany). When every operand
// bit is constant the result is a constant and nothing is emitted. Otherwise it allocates
// n = bitlen(len·(2^32 − 1)) result bits, LSB first, and hands the equality
// Σ_ops Σ_k 2^k·lc(bit) = Σ_k 2^k·r_k to m; the result is the low 32 bits.
func AddMany(cs r1cs.ConstraintSystem, m *MultiEq, ops []UInt32) UInt32 {
	if len(ops) < 2 || len(ops) > 10 {
		panic("gadget: AddMany takes 2 to 10 operands")
	}
	var sum uint64
	allConstant := true
	for i := range ops {
		sum += uint64(ops[i].Value)
		for k := range 32 {
			allConstant = allConstant && ops[i].Bits[k].IsConstant()
		}
	}
	if allConstant {
		return UInt32Constant(uint32(sum))
	}
	n := bits.Len64(uint64(len(ops)) * (1<<32 - 1))
	r := UInt32{Value: uint32(sum)}
	s := rowFor(cs)
	for k := range n {
		b := AllocBit(cs, sum>>k&1 == 1)
		if s != nil {
			s.c.AddTerm(b.Var, &powersOfTwo[k])
		}
		if k < 32 {
			r.Bits[k] = b.Is()
		}
	}
	if s != nil {
		for i := range ops {
			for k := range 32 {
				ops[i].Bits[k].AddToLC(&s.a, &powersOfTwo[k])
			}
		}
		m.EnforceEqual(n, s.a, s.c)
		putScratch(s)
	}
	return r
}

// UInt64 is 64 Booleans, least significant first (rfp gadgets/uint64.rs).
type UInt64 struct {
	Bits  [64]Boolean
	Value uint64
}

// AllocUInt64 allocates 64 bits, LSB first.
func AllocUInt64(cs r1cs.ConstraintSystem, v uint64) UInt64 {
	u := UInt64{Value: v}
	for i := range u.Bits {
		u.Bits[i] = AllocBit(cs, v>>i&1 == 1).Is()
	}
	return u
}

// UInt64Constant returns 64 constants.
func UInt64Constant(v uint64) UInt64 {
	u := UInt64{Value: v}
	for i := range u.Bits {
		u.Bits[i] = Constant(v>>i&1 == 1)
	}
	return u
}

// BitsBE returns the bits most significant first (to_bits_be).
func (u UInt64) BitsBE() []Boolean {
	out := make([]Boolean, 64)
	for i := range out {
		out[i] = u.Bits[63-i]
	}
	return out
}

// PackIntoInput exposes u as one public input whose value is the integer itself
// (pack_into_inputs over the 64 LSB-first bits).
func (u UInt64) PackIntoInput(cs r1cs.ConstraintSystem) {
	PackIntoInputs(cs, u.Bits[:])
}
