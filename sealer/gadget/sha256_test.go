package gadget

import (
	"crypto/sha256"
	"math/rand/v2"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/snarkpipe/snarkpipe/prover/r1cs"
)

func allocBitsBE(cs r1cs.ConstraintSystem, data []byte) []Boolean {
	bits := BytesToBitsBE(data)
	out := make([]Boolean, len(bits))
	for i, b := range bits {
		out[i] = AllocBit(cs, b).Is()
	}
	return out
}

func boolValues(bits []Boolean) []bool {
	out := make([]bool, len(bits))
	for i, b := range bits {
		out[i] = b.Value
	}
	return out
}

// Counts confirmed against bellperson's tests (spec §4.3).
func TestSha256Counts(t *testing.T) {
	t.Run("compression, allocated block, constant IV", func(t *testing.T) {
		cnt := r1cs.NewCounter()
		block := allocBitsBE(cnt, make([]byte, 64))
		before := cnt.Sizes().NumConstraints
		Sha256BlockNoPadding(cnt, block)
		if got := cnt.Sizes().NumConstraints - before; got != 25840 {
			t.Errorf("%d rows, want 25840", got)
		}
	})
	t.Run("sha256 of 512 allocated bits", func(t *testing.T) {
		cnt := r1cs.NewCounter()
		input := allocBitsBE(cnt, make([]byte, 64))
		before := cnt.Sizes().NumConstraints
		if _, err := Sha256(cnt, input); err != nil {
			t.Fatal(err)
		}
		if got := cnt.Sizes().NumConstraints - before; got != 44874 {
			t.Errorf("%d rows, want 44874", got)
		}
	})
	t.Run("all-constant block", func(t *testing.T) {
		cnt := r1cs.NewCounter()
		block := make([]Boolean, 512)
		for i := range block {
			block[i] = Constant(i%3 == 0)
		}
		out := Sha256BlockNoPadding(cnt, block)
		if s := cnt.Sizes(); s.NumConstraints != 0 || s.NumAux != 0 {
			t.Errorf("%d rows / %d aux, want 0", s.NumConstraints, s.NumAux)
		}
		for _, b := range out {
			if !b.IsConstant() {
				t.Fatal("constant block gave a non-constant digest bit")
			}
		}
	})
}

// The gadget's digest equals crypto/sha256 for every byte length 0–31 and every multiple
// of 8 up to 256 bytes (mirrors bellperson test_against_vectors), and the system holds.
func TestSha256AgainstCryptoSHA256(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var lengths []int
	for n := range 32 {
		lengths = append(lengths, n)
	}
	for n := 32; n <= 256; n += 8 {
		if testing.Short() && n > 64 && n%64 != 0 {
			continue // -short keeps every block-count class; the full run covers all lengths
		}
		lengths = append(lengths, n)
	}
	for _, n := range lengths {
		data := make([]byte, n)
		fillRandom(rng, data)
		chk := r1cs.NewChecker()
		digest, err := Sha256(chk, allocBitsBE(chk, data))
		if err != nil {
			t.Fatal(err)
		}
		if err := chk.Err(); err != nil {
			t.Fatalf("len %d: %v", n, err)
		}
		want := sha256.Sum256(data)
		if got := BitsBEToBytes(boolValues(digest)); string(got) != string(want[:]) {
			t.Fatalf("len %d: digest %x, want %x", n, got, want)
		}
	}
}

func TestSha256RejectsPartialByte(t *testing.T) {
	if _, err := Sha256(r1cs.NewCounter(), make([]Boolean, 7)); err == nil {
		t.Fatal("7-bit input accepted")
	}
}

// A tampered message-schedule bit makes the checker name a row and not pass silently.
func TestSha256FlippedBit(t *testing.T) {
	data := []byte("snarkpipe")
	build := func(cs r1cs.ConstraintSystem) {
		if _, err := Sha256(cs, allocBitsBE(cs, data)); err != nil {
			t.Fatal(err)
		}
	}
	// aux 72 is the first xor result of w[16]'s s0 (after 72 input bits); its row is 72.
	if got := failingRow(t, 72, build); got != 72 {
		t.Errorf("failing row %d, want 72", got)
	}
}

func TestSha256Digest(t *testing.T) {
	shape := mustSynth(t, func(cs r1cs.ConstraintSystem) {
		if _, err := Sha256(cs, allocBitsBE(cs, make([]byte, 64))); err != nil {
			t.Fatal(err)
		}
	})
	if shape.NumConstraints != 512+44874 {
		t.Errorf("%d rows, want %d", shape.NumConstraints, 512+44874)
	}
	assertDigest(t, shape, "57975ea860a818f34262c0ace45e213a38c21f0aecb152ee81e96cfb994338e8")
}

// AddMany with MultiEq, row by row. x = aux0..31, y = aux32..63 (rows 0..63). Eight
// AddMany([x, y]) each allocate 33 result bits (rows and aux in order). 7·33 = 231 bits
// fit; the 8th would reach 264 ≥ 254, so the accumulator flushes right after the 8th's
// result bits (row 64 + 8·33 = 328) with the first seven equalities shifted by 33·j, and
// Flush emits the 8th alone (row 329).
func TestAddManyMultiEqRows(t *testing.T) {
	xv, yv := uint32(0xdeadbeef), uint32(0x9abcdef1)
	var results []UInt32
	shape := mustSynth(t, func(cs r1cs.ConstraintSystem) {
		x, y := AllocUInt32(cs, xv), AllocUInt32(cs, yv)
		m := NewMultiEq(cs)
		for range 8 {
			results = append(results, AddMany(cs, m, []UInt32{x, y}))
		}
		m.Flush()
	})
	assertSizes(t, shape, 64+8*33+2, 64+8*33, 1)
	for _, r := range results {
		if r.Value != xv+yv {
			t.Fatalf("sum %#x, want %#x", r.Value, xv+yv)
		}
	}
	for j := range 8 {
		for k := range 33 {
			b := aux(64 + 33*j + k)
			assertRow(t, shape, 64+33*j+k, lcOf(tm{one, 1}, tm{b, -1}), lcOf(tm{b, 1}), nil)
		}
	}
	side := func(eqs []int, operands bool) r1cs.LC {
		var lc r1cs.LC
		for _, j := range eqs {
			shift := 33 * (j % 7)
			if operands {
				for k := range 32 {
					var c fr.Element
					c.Set(&powersOfTwo[shift+k])
					lc.AddTerm(aux(k), &c)
					lc.AddTerm(aux(32+k), &c)
				}
			} else {
				for k := range 33 {
					lc.AddTerm(aux(64+33*j+k), &powersOfTwo[shift+k])
				}
			}
		}
		lc.Canonicalize()
		return lc
	}
	first := []int{0, 1, 2, 3, 4, 5, 6}
	assertRow(t, shape, 328, side(first, true), lcOf(tm{one, 1}), side(first, false))
	assertRow(t, shape, 329, side([]int{7}, true), lcOf(tm{one, 1}), side([]int{7}, false))
	assertDigest(t, shape, "a0b97acb502940d4462e094edee2bb5ef19216ed808dec3b349a37602e2e5494")
}

// A constant operand adds coeff·ONE to the left side; the result bit count follows the
// operand count (33, 34, 34, 35 for 2–5 operands).
func TestAddManyConstantsAndWidths(t *testing.T) {
	for nops, width := range map[int]int{2: 33, 3: 34, 4: 34, 5: 35, 9: 36, 10: 36} {
		shape := mustSynth(t, func(cs r1cs.ConstraintSystem) {
			x := AllocUInt32(cs, 0xffffffff)
			ops := []UInt32{x}
			for i := 1; i < nops; i++ {
				ops = append(ops, UInt32Constant(0xffffffff-uint32(i)))
			}
			m := NewMultiEq(cs)
			AddMany(cs, m, ops)
			m.Flush()
		})
		if got := shape.NumAux - 32; got != width {
			t.Errorf("%d operands: %d result bits, want %d", nops, got, width)
		}
		a, _, _ := shape.Row(shape.NumConstraints - 1)
		var sumConst uint64
		for i := 1; i < nops; i++ {
			sumConst += uint64(0xffffffff - uint32(i))
		}
		var want fr.Element
		want.SetUint64(sumConst)
		if a[0].Var != one || !a[0].Coeff.Equal(&want) {
			t.Errorf("%d operands: ONE coefficient %s, want %d", nops, a[0].Coeff.String(), sumConst)
		}
	}
	cnt := r1cs.NewCounter()
	m := NewMultiEq(cnt)
	if r := AddMany(cnt, m, []UInt32{UInt32Constant(1), UInt32Constant(0xffffffff)}); r.Value != 0 || !r.Bits[0].IsConstant() {
		t.Errorf("constant addmany = %+v", r.Value)
	}
	m.Flush()
	if cnt.Sizes().NumConstraints != 0 {
		t.Error("constant addmany emitted rows")
	}
}

func TestUInt32RotrShr(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for range 50 {
		v := rng.Uint32()
		u := UInt32Constant(v)
		for n := range 32 {
			r, s := u.Rotr(n), u.Shr(n)
			for i := range 32 {
				if r.Bits[i].Value != (r.Value>>i&1 == 1) || s.Bits[i].Value != (s.Value>>i&1 == 1) {
					t.Fatalf("rotr/shr %d of %#x: bit %d disagrees with value", n, v, i)
				}
			}
			if r.Value != v>>n|v<<(32-n) && n != 0 || s.Value != v>>n {
				t.Fatalf("rotr/shr %d of %#x = %#x / %#x", n, v, r.Value, s.Value)
			}
		}
	}
}

func TestUInt64PackIntoInput(t *testing.T) {
	var in []fr.Element
	shape := mustSynth(t, func(cs r1cs.ConstraintSystem) {
		u := AllocUInt64(cs, 0x0123456789abcdef)
		u.PackIntoInput(cs)
		in = cs.(*teeCS).chk.Inputs()
		if be := u.BitsBE(); !be[63].Value || be[0].Value {
			t.Error("BitsBE order wrong")
		}
	})
	assertSizes(t, shape, 65, 64, 2)
	want := frU64(0x0123456789abcdef)
	if !in[1].Equal(&want) {
		t.Errorf("input %s, want %s", in[1].String(), want.String())
	}
}
