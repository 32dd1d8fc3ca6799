package gadget

import (
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/snarkpipe/snarkpipe/prover/r1cs"
)

// to_bits_le row by row: x = aux0; bits aux1..aux255 each with ONE − b | b | 0 (rows
// 0..254); then 0 | 0 | Σ 2^k·b_k − x (row 255).
func TestToBitsLERows(t *testing.T) {
	x := randFr()
	var bits []Boolean
	shape := mustSynth(t, func(cs r1cs.ConstraintSystem) {
		bits = AllocNum(cs, x).ToBitsLE(cs)
	})
	assertSizes(t, shape, 256, 256, 1)
	vars := make([]r1cs.Variable, NumBits)
	for k := range NumBits {
		b := aux(1 + k)
		vars[k] = b
		assertRow(t, shape, k, lcOf(tm{one, 1}, tm{b, -1}), lcOf(tm{b, 1}), nil)
		if bits[k].Kind != BoolIs || bits[k].Var != b {
			t.Fatalf("bit %d is %+v, want Is(%s)", k, bits[k], b)
		}
	}
	assertRow(t, shape, 255, nil, nil, lcPow2(vars, tm{aux(0), -1}))
	want := FrBitsLE(&x)
	for k := range bits {
		if bits[k].Value != want[k] {
			t.Fatalf("bit %d value %v, want %v", k, bits[k].Value, want[k])
		}
	}
	assertDigest(t, shape, "50c81fbdb7865d48106e02c38b7c82a15267de0ade9d77f765eb93fea35a2239")
}

func TestToBitsLEFlippedBit(t *testing.T) {
	x := randFr()
	build := func(cs r1cs.ConstraintSystem) { AllocNum(cs, x).ToBitsLE(cs) }
	// A flipped bit keeps its boolean row but breaks the unpacking row.
	for _, k := range []int{0, 7, 254} {
		if got := failingRow(t, 1+k, build); got != 255 {
			t.Errorf("bit %d flipped: failing row %d, want 255", k, got)
		}
	}
}

// strictRowCount is the strict decomposition's cost derived from the runs of ones in
// p − 1 (MSB first): 255 bit rows, one AND row per extra member of each AND, 1 unpacking.
func strictRowCount() int {
	rows := NumBits + 1
	runs := 0
	cur := 0
	for _, one := range pMinusOneBitsBE {
		if one {
			cur++
			continue
		}
		if cur > 0 {
			members := cur
			if runs > 0 {
				members++ // the previous run's AND
			}
			rows += members - 1
			runs++
			cur = 0
		}
	}
	return rows
}

func TestToBitsLEStrict(t *testing.T) {
	var pm1 fr.Element
	pm1.SetOne()
	pm1.Neg(&pm1)
	for _, x := range []fr.Element{{}, frU64(1), pm1, randFr(), randFr()} {
		var bits []Boolean
		shape := mustSynth(t, func(cs r1cs.ConstraintSystem) {
			bits = AllocNum(cs, x).ToBitsLEStrict(cs)
		})
		want := FrBitsLE(&x)
		for k := range bits {
			if bits[k].Value != want[k] {
				t.Fatalf("bit %d value %v, want %v", k, bits[k].Value, want[k])
			}
		}
		if shape.NumConstraints != strictRowCount() || shape.NumAux != shape.NumConstraints {
			t.Fatalf("strict: %d rows / %d aux, want %d rows, aux = rows", shape.NumConstraints, shape.NumAux, strictRowCount())
		}
	}
}

func TestReverseBitNumbering(t *testing.T) {
	in := make([]Boolean, 10)
	for i := range in {
		in[i] = AllocatedBit{Var: aux(i), Value: i%3 == 0}.Is()
	}
	out := ReverseBitNumbering(in)
	if len(out) != 16 {
		t.Fatalf("len %d, want 16", len(out))
	}
	// Group 0: in[7..0]; group 1: 6 Constant(false) pads, then in[9], in[8].
	for i := range 8 {
		if out[i] != in[7-i] {
			t.Errorf("out[%d] = %+v, want in[%d]", i, out[i], 7-i)
		}
	}
	for i := 8; i < 14; i++ {
		if !isFalse(out[i]) {
			t.Errorf("out[%d] = %+v, want Constant(false)", i, out[i])
		}
	}
	if out[14] != in[9] || out[15] != in[8] {
		t.Errorf("tail = %+v %+v", out[14], out[15])
	}
}

func TestPackIntoInputs(t *testing.T) {
	// 300 bits: one chunk of 254 and one of 46 → 2 inputs, 2 rows.
	values := make([]bool, 300)
	for i := range values {
		values[i] = (i*7)%5 < 2
	}
	var got []fr.Element
	shape := mustSynth(t, func(cs r1cs.ConstraintSystem) {
		bits := make([]Boolean, len(values))
		for i, v := range values {
			bits[i] = AllocBit(cs, v).Is()
		}
		bits[3] = Constant(true) // constants contribute coeff·ONE
		got = PackIntoInputs(cs, bits)
	})
	assertSizes(t, shape, 302, 300, 3)
	values[3] = true
	if want := PackBitsValue(values[:254]); !got[0].Equal(&want) {
		t.Errorf("input 1 = %s, want %s", got[0].String(), want.String())
	}
	if want := PackBitsValue(values[254:]); !got[1].Equal(&want) {
		t.Errorf("input 2 = %s, want %s", got[1].String(), want.String())
	}
	vars := make([]r1cs.Variable, 46)
	for k := range vars {
		vars[k] = aux(254 + k)
	}
	assertRow(t, shape, 301, lcPow2(vars), lcOf(tm{one, 1}), lcOf(tm{r1cs.Input(2), 1}))
}

func TestPackBits(t *testing.T) {
	x := randFr()
	var packed AllocatedNum
	shape := mustSynth(t, func(cs r1cs.ConstraintSystem) {
		bits := AllocNum(cs, x).ToBitsLE(cs)
		packed = PackBits(cs, bits)
	})
	assertSizes(t, shape, 257, 257, 1)
	// 254 of the 255 bits: x with bit 254 cleared.
	b := FrToBytesLE(&x)
	b[31] &= 0x3f
	want, _ := FrFromBytesLE(&b)
	if !packed.Value.Equal(&want) {
		t.Fatalf("packed %s, want %s", packed.Value.String(), want.String())
	}
}

// Strictness (mirrors bellman's test_into_bits_strict): decompose p − 1, then set its
// lowest bit — the last allocated, a zero position of p − 1 — so the bits spell p. The
// conditional boolean row of that bit fails, before the unpacking row.
func TestToBitsLEStrictRejectsCharacteristic(t *testing.T) {
	var pm1 fr.Element
	pm1.SetOne()
	pm1.Neg(&pm1)
	build := func(cs r1cs.ConstraintSystem) { AllocNum(cs, pm1).ToBitsLEStrict(cs) }
	cnt := r1cs.NewCounter()
	build(cnt)
	s := cnt.Sizes()
	if got := failingRow(t, s.NumAux-1, build); got != s.NumConstraints-2 {
		t.Errorf("failing row %d, want %d (the last bit's conditional boolean row)", got, s.NumConstraints-2)
	}
	// The non-strict decomposition has no per-bit range check: tampering with a bit only
	// breaks its unpacking row.
	loose := func(cs r1cs.ConstraintSystem) { AllocNum(cs, pm1).ToBitsLE(cs) }
	if got := failingRow(t, 1, loose); got != 255 {
		t.Errorf("non-strict: failing row %d, want 255", got)
	}
}
