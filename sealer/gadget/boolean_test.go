package gadget

import (
	"testing"

	"github.com/snarkpipe/snarkpipe/prover/r1cs"
)

// kinds used to build operands: constant false/true, Is(bit), Not(bit).
type operandKind int

const (
	kFalse operandKind = iota
	kTrue
	kIs
	kNot
)

var allKinds = []operandKind{kFalse, kTrue, kIs, kNot}

// operand makes a Boolean of kind k; for Is/Not it allocates a bit whose logical value
// (after negation) is v.
func operand(cs r1cs.ConstraintSystem, k operandKind, v bool) Boolean {
	switch k {
	case kFalse:
		return Constant(false)
	case kTrue:
		return Constant(true)
	case kIs:
		return AllocBit(cs, v).Is()
	default:
		return AllocBit(cs, !v).Is().Not()
	}
}

func operandValue(k operandKind, v bool) bool {
	switch k {
	case kFalse:
		return false
	case kTrue:
		return true
	}
	return v
}

// Every kind combination and every value gives the right value and a satisfied system;
// the row count follows upstream's folding: only two non-constant operands cost a row.
func TestBoolXorAndFolding(t *testing.T) {
	ops := []struct {
		name string
		f    func(cs r1cs.ConstraintSystem, a, b Boolean) Boolean
		want func(a, b bool) bool
	}{
		{"xor", BoolXor, func(a, b bool) bool { return a != b }},
		{"and", BoolAnd, func(a, b bool) bool { return a && b }},
	}
	for _, op := range ops {
		for _, ka := range allKinds {
			for _, kb := range allKinds {
				for v := range 4 {
					va, vb := v&1 == 1, v&2 == 2
					var got Boolean
					shape := mustSynth(t, func(cs r1cs.ConstraintSystem) {
						a, b := operand(cs, ka, va), operand(cs, kb, vb)
						got = op.f(cs, a, b)
					})
					want := op.want(operandValue(ka, va), operandValue(kb, vb))
					if got.Value != want {
						t.Fatalf("%s(%d,%d) values %v,%v = %v, want %v", op.name, ka, kb, va, vb, got.Value, want)
					}
					inputsAllocated := 0
					for _, k := range []operandKind{ka, kb} {
						if k >= kIs {
							inputsAllocated++
						}
					}
					wantRows := inputsAllocated
					if inputsAllocated == 2 {
						wantRows++
					}
					if shape.NumConstraints != wantRows {
						t.Fatalf("%s(%d,%d): %d rows, want %d", op.name, ka, kb, shape.NumConstraints, wantRows)
					}
				}
			}
		}
	}
}

// The rows that the non-constant cases emit, side by side. x = aux0, y = aux1.
func TestBoolOpRows(t *testing.T) {
	x, y, r := aux(0), aux(1), aux(2)
	cases := []struct {
		name     string
		kx, ky   operandKind
		f        func(cs r1cs.ConstraintSystem, a, b Boolean) Boolean
		a, b, c  r1cs.LC
		wantKind BoolKind
	}{
		{"xor(Is,Is)", kIs, kIs, BoolXor, lcOf(tm{x, 2}), lcOf(tm{y, 1}), lcOf(tm{x, 1}, tm{y, 1}, tm{r, -1}), BoolIs},
		{"xor(Not,Not)", kNot, kNot, BoolXor, lcOf(tm{x, 2}), lcOf(tm{y, 1}), lcOf(tm{x, 1}, tm{y, 1}, tm{r, -1}), BoolIs},
		// (Is, Not) and (Not, Is): the Is operand goes first, result negated.
		{"xor(Is,Not)", kIs, kNot, BoolXor, lcOf(tm{x, 2}), lcOf(tm{y, 1}), lcOf(tm{x, 1}, tm{y, 1}, tm{r, -1}), BoolNot},
		{"xor(Not,Is)", kNot, kIs, BoolXor, lcOf(tm{y, 2}), lcOf(tm{x, 1}), lcOf(tm{x, 1}, tm{y, 1}, tm{r, -1}), BoolNot},
		{"and(Is,Is)", kIs, kIs, BoolAnd, lcOf(tm{x, 1}), lcOf(tm{y, 1}), lcOf(tm{r, 1}), BoolIs},
		{"and(Is,Not)", kIs, kNot, BoolAnd, lcOf(tm{x, 1}), lcOf(tm{one, 1}, tm{y, -1}), lcOf(tm{r, 1}), BoolIs},
		{"and(Not,Is)", kNot, kIs, BoolAnd, lcOf(tm{y, 1}), lcOf(tm{one, 1}, tm{x, -1}), lcOf(tm{r, 1}), BoolIs},
		{"and(Not,Not)", kNot, kNot, BoolAnd, lcOf(tm{one, 1}, tm{x, -1}), lcOf(tm{one, 1}, tm{y, -1}), lcOf(tm{r, 1}), BoolIs},
	}
	for _, c := range cases {
		var got Boolean
		shape := mustSynth(t, func(cs r1cs.ConstraintSystem) {
			got = c.f(cs, operand(cs, c.kx, true), operand(cs, c.ky, false))
		})
		assertSizes(t, shape, 3, 3, 1)
		assertRow(t, shape, 0, lcOf(tm{one, 1}, tm{x, -1}), lcOf(tm{x, 1}), nil)
		assertRow(t, shape, 2, c.a, c.b, c.c)
		if got.Kind != c.wantKind || got.Var != r {
			t.Errorf("%s: result kind %d var %s, want kind %d var %s", c.name, got.Kind, got.Var, c.wantKind, r)
		}
	}
}

func TestSha256ChMajAllCases(t *testing.T) {
	for _, ka := range allKinds {
		for _, kb := range allKinds {
			for _, kc := range allKinds {
				for v := range 8 {
					va, vb, vc := v&1 == 1, v&2 == 2, v&4 == 4
					a, b, c := operandValue(ka, va), operandValue(kb, vb), operandValue(kc, vc)
					var ch, maj Boolean
					mustSynth(t, func(cs r1cs.ConstraintSystem) {
						x, y, z := operand(cs, ka, va), operand(cs, kb, vb), operand(cs, kc, vc)
						ch = Sha256Ch(cs, x, y, z)
						maj = Sha256Maj(cs, x, y, z)
					})
					if want := (a && b) != (!a && c); ch.Value != want {
						t.Fatalf("ch(%d,%d,%d) = %v, want %v", ka, kb, kc, ch.Value, want)
					}
					if want := (a && b) || (a && c) || (b && c); maj.Value != want {
						t.Fatalf("maj(%d,%d,%d) = %v, want %v", ka, kb, kc, maj.Value, want)
					}
				}
			}
		}
	}
}

// Rows of specific ch/maj cases (spec §3.1). Operands are allocated in order a, b, c as
// needed; results follow.
func TestSha256ChMajRows(t *testing.T) {
	t.Run("ch general", func(t *testing.T) {
		shape := mustSynth(t, func(cs r1cs.ConstraintSystem) {
			Sha256Ch(cs, operand(cs, kIs, true), operand(cs, kIs, false), operand(cs, kIs, true))
		})
		a, b, c, ch := aux(0), aux(1), aux(2), aux(3)
		assertSizes(t, shape, 4, 4, 1)
		assertRow(t, shape, 3, lcOf(tm{b, 1}, tm{c, -1}), lcOf(tm{a, 1}), lcOf(tm{ch, 1}, tm{c, -1}))
	})
	t.Run("ch a=true is the general case", func(t *testing.T) {
		shape := mustSynth(t, func(cs r1cs.ConstraintSystem) {
			Sha256Ch(cs, Constant(true), operand(cs, kIs, false), operand(cs, kNot, true))
		})
		b, c, ch := aux(0), aux(1), aux(2)
		assertSizes(t, shape, 3, 3, 1)
		// lc(c) for Not(c) is ONE − c.
		assertRow(t, shape, 2, lcOf(tm{b, 1}, tm{one, -1}, tm{c, 1}), lcOf(tm{one, 1}), lcOf(tm{ch, 1}, tm{one, -1}, tm{c, 1}))
	})
	t.Run("ch b=false is and(not a, c)", func(t *testing.T) {
		var got Boolean
		shape := mustSynth(t, func(cs r1cs.ConstraintSystem) {
			got = Sha256Ch(cs, operand(cs, kIs, false), Constant(false), operand(cs, kIs, true))
		})
		a, c, r := aux(0), aux(1), aux(2)
		assertSizes(t, shape, 3, 3, 1)
		assertRow(t, shape, 2, lcOf(tm{c, 1}), lcOf(tm{one, 1}, tm{a, -1}), lcOf(tm{r, 1}))
		if got.Kind != BoolIs || !got.Value {
			t.Errorf("result %+v", got)
		}
	})
	t.Run("ch c=true is not(and(a, not b))", func(t *testing.T) {
		var got Boolean
		shape := mustSynth(t, func(cs r1cs.ConstraintSystem) {
			got = Sha256Ch(cs, operand(cs, kIs, true), operand(cs, kIs, true), Constant(true))
		})
		a, b, r := aux(0), aux(1), aux(2)
		assertRow(t, shape, 2, lcOf(tm{a, 1}), lcOf(tm{one, 1}, tm{b, -1}), lcOf(tm{r, 1}))
		if got.Kind != BoolNot || got.Var != r {
			t.Errorf("result %+v", got)
		}
	})
	t.Run("maj general", func(t *testing.T) {
		shape := mustSynth(t, func(cs r1cs.ConstraintSystem) {
			Sha256Maj(cs, operand(cs, kIs, true), operand(cs, kIs, false), operand(cs, kIs, true))
		})
		a, b, c, maj, bc := aux(0), aux(1), aux(2), aux(3), aux(4)
		assertSizes(t, shape, 5, 5, 1)
		assertRow(t, shape, 3, lcOf(tm{b, 1}), lcOf(tm{c, 1}), lcOf(tm{bc, 1}))
		assertRow(t, shape, 4, lcOf(tm{bc, 2}, tm{b, -1}, tm{c, -1}), lcOf(tm{a, 1}), lcOf(tm{bc, 1}, tm{maj, -1}))
	})
	t.Run("maj a=true is not(nor-free and(not b, not c))", func(t *testing.T) {
		var got Boolean
		shape := mustSynth(t, func(cs r1cs.ConstraintSystem) {
			got = Sha256Maj(cs, Constant(true), operand(cs, kIs, false), operand(cs, kIs, false))
		})
		b, c, r := aux(0), aux(1), aux(2)
		assertSizes(t, shape, 3, 3, 1)
		assertRow(t, shape, 2, lcOf(tm{one, 1}, tm{b, -1}), lcOf(tm{one, 1}, tm{c, -1}), lcOf(tm{r, 1}))
		if got.Kind != BoolNot || got.Value {
			t.Errorf("result %+v", got)
		}
	})
}

func TestFlippedBitNamesRow(t *testing.T) {
	// aux0 = a, aux1 = b, aux2 = a∧b (row 2). Tampering with the and result breaks row 2;
	// tampering with a breaks the and row too (a's boolean row still holds for 0/1).
	build := func(cs r1cs.ConstraintSystem) {
		a, b := AllocBit(cs, true), AllocBit(cs, true)
		And(cs, a, b)
	}
	for target, wantRow := range map[int]int{0: 2, 1: 2, 2: 2} {
		if got := failingRow(t, target, build); got != wantRow {
			t.Errorf("tampered aux %d: failing row %d, want %d", target, got, wantRow)
		}
	}
}

func TestBoolOr(t *testing.T) {
	for _, ka := range allKinds {
		for _, kb := range allKinds {
			for v := range 4 {
				va, vb := v&1 == 1, v&2 == 2
				var got Boolean
				mustSynth(t, func(cs r1cs.ConstraintSystem) {
					got = BoolOr(cs, operand(cs, ka, va), operand(cs, kb, vb))
				})
				if want := operandValue(ka, va) || operandValue(kb, vb); got.Value != want {
					t.Fatalf("or(%d,%d) = %v, want %v", ka, kb, got.Value, want)
				}
			}
		}
	}
}

func TestBoolEnforceEqual(t *testing.T) {
	if err := BoolEnforceEqual(r1cs.NewCounter(), Constant(true), Constant(false)); err == nil {
		t.Error("true = false accepted")
	}
	x := aux(0)
	cases := []struct {
		name string
		kb   operandKind
		c    r1cs.LC
	}{
		{"x = true", kTrue, lcOf(tm{one, 1}, tm{x, -1})},
		{"x = false", kFalse, lcOf(tm{x, 1})},
		{"x = Not(y)", kNot, lcOf(tm{x, 1}, tm{one, -1}, tm{aux(1), 1})},
	}
	for _, c := range cases {
		for _, agree := range []bool{true, false} {
			shape, err := synth(func(cs r1cs.ConstraintSystem) {
				bVal := operandValue(c.kb, agree)
				a := operand(cs, kIs, bVal == agree)
				b := operand(cs, c.kb, agree)
				if err := BoolEnforceEqual(cs, a, b); err != nil {
					t.Fatal(err)
				}
			})
			if (err == nil) != agree {
				t.Errorf("%s agree=%v: checker %v", c.name, agree, err)
			}
			last := shape.NumConstraints - 1
			assertRow(t, shape, last, nil, nil, c.c)
		}
	}
}

func TestXorBits(t *testing.T) {
	if _, err := XorBits(r1cs.NewCounter(), make([]Boolean, 255), nil); err == nil {
		t.Error("255-bit key accepted")
	}
	var out []Boolean
	shape := mustSynth(t, func(cs r1cs.ConstraintSystem) {
		key := make([]Boolean, 256)
		for i := range key {
			key[i] = AllocBit(cs, i%3 == 0).Is()
		}
		input := make([]Boolean, 300)
		for i := range input {
			input[i] = AllocBit(cs, i%5 == 0).Is()
		}
		var err error
		if out, err = XorBits(cs, key, input); err != nil {
			t.Fatal(err)
		}
	})
	assertSizes(t, shape, 556+300, 556+300, 1)
	for i, b := range out {
		if want := (i%5 == 0) != (i%256%3 == 0); b.Value != want {
			t.Fatalf("bit %d = %v, want %v", i, b.Value, want)
		}
	}
	// Row of output 0: input bit first (a + a | b | a + b − r).
	in0, key0, r0 := aux(256), aux(0), aux(556)
	assertRow(t, shape, 556, lcOf(tm{in0, 2}), lcOf(tm{key0, 1}), lcOf(tm{in0, 1}, tm{key0, 1}, tm{r0, -1}))
}
