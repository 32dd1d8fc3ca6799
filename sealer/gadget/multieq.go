package gadget

import (
	"github.com/snarkpipe/snarkpipe/prover/r1cs"
)

// MultiEq batches equalities L = R of known bit widths into one row (bellperson
// gadgets/multieq.rs). Each equality is shifted by the bits already used, so up to 254
// bits of equalities share the row lhs | ONE | rhs. Rows emitted between equalities go
// straight to the underlying system; the accumulator's row appears when it would
// overflow and at Flush, exactly where upstream emits it.
type MultiEq struct {
	cs       r1cs.ConstraintSystem
	lhs, rhs r1cs.LC
	bitsUsed int
}

// NewMultiEq starts an empty accumulator over cs.
func NewMultiEq(cs r1cs.ConstraintSystem) *MultiEq { return &MultiEq{cs: cs} }

// EnforceEqual adds the equality lhs = rhs, whose sides span numBits bits. It first flushes
// when the equality would not fit below Capacity.
func (m *MultiEq) EnforceEqual(numBits int, lhs, rhs r1cs.LC) {
	if Capacity <= m.bitsUsed+numBits {
		m.accumulate()
	}
	if Capacity <= m.bitsUsed+numBits {
		panic("gadget: MultiEq equality wider than the field capacity")
	}
	shift := &powersOfTwo[m.bitsUsed]
	m.lhs.AddScaledLC(shift, lhs)
	m.rhs.AddScaledLC(shift, rhs)
	m.bitsUsed += numBits
}

// Flush emits the pending row if any equality is pending (upstream's drop).
func (m *MultiEq) Flush() {
	if m.bitsUsed > 0 {
		m.accumulate()
	}
}

// accumulate emits lhs | ONE | rhs and resets the accumulator.
func (m *MultiEq) accumulate() {
	s := getScratch()
	s.b.Add(r1cs.One)
	m.cs.Enforce("multieq", &m.lhs, &s.b, &m.rhs)
	putScratch(s)
	m.lhs.Reset()
	m.rhs.Reset()
	m.bitsUsed = 0
}
