package gadget

import (
	"errors"
	"testing"

	"github.com/snarkpipe/snarkpipe/prover/r1cs"
)

// insertCase allocates element, then the siblings, then the index bits (LSB first), then
// inserts. Returns the output and the shape.
func insertCase(t *testing.T, arity, index int) ([]AllocatedNum, []AllocatedNum, *r1cs.Shape) {
	t.Helper()
	var out, in []AllocatedNum
	shape := mustSynth(t, func(cs r1cs.ConstraintSystem) {
		in = make([]AllocatedNum, arity)
		for i := range in {
			in[i] = AllocNum(cs, frU64(uint64(100+i)))
		}
		k := 0
		for 1<<k < arity {
			k++
		}
		bits := make([]Boolean, k)
		for j := range bits {
			bits[j] = AllocBit(cs, index>>j&1 == 1).Is()
		}
		var err error
		out, err = Insert(cs, in[0], bits, in[1:])
		if err != nil {
			t.Fatal(err)
		}
	})
	return in, out, shape
}

func TestInsertCountsAndOrder(t *testing.T) {
	wantRows := map[int]int{2: 2, 4: 8, 8: 22, 16: 16 * 15}
	for arity, rows := range wantRows {
		bitsCount := map[int]int{2: 1, 4: 2, 8: 3, 16: 4}[arity]
		for index := range arity {
			in, out, shape := insertCase(t, arity, index)
			if got := shape.NumConstraints - bitsCount; got != rows {
				t.Errorf("arity %d index %d: %d insert rows, want %d", arity, index, got, rows)
			}
			if got := shape.NumAux - arity - bitsCount; got != rows {
				t.Errorf("arity %d index %d: %d insert aux, want %d", arity, index, got, rows)
			}
			// Slot index holds the element; the siblings fill the rest in order.
			sib := 1
			for pos := range arity {
				want := in[0]
				if pos != index {
					want = in[sib]
					sib++
				}
				if !out[pos].Value.Equal(&want.Value) {
					t.Errorf("arity %d index %d: slot %d = %s, want %s", arity, index, pos, out[pos].Value.String(), want.Value.String())
				}
			}
		}
	}
}

// insert_4 row by row (spec §3.3): A = aux0, b, c, d = aux1..3, b0 = aux4, b1 = aux5 (rows
// 0, 1); picks p0_x0, p0, p1_x0, p1, p2_x1, p2, p3_x1, p3 = aux6..13, rows 2..9.
// pick(cond, then, else) → r: row else − then | cond | else − r.
func TestInsert4Rows(t *testing.T) {
	_, _, shape := insertCase(t, 4, 2)
	A, b, c, d := aux(0), aux(1), aux(2), aux(3)
	b0, b1 := aux(4), aux(5)
	p := func(i int) r1cs.Variable { return aux(6 + i) }
	picks := []struct {
		cond, then, els r1cs.Variable
	}{
		{b0, b, A}, {b1, b, p(0)},
		{b0, A, b}, {b1, c, p(2)},
		{b0, d, A}, {b1, p(4), c},
		{b0, A, d}, {b1, p(6), d},
	}
	assertSizes(t, shape, 10, 14, 1)
	for i, pk := range picks {
		assertRow(t, shape, 2+i, lcOf(tm{pk.els, 1}, tm{pk.then, -1}), lcOf(tm{pk.cond, 1}), lcOf(tm{pk.els, 1}, tm{p(i), -1}))
	}
	assertDigest(t, shape, "485a5dac57a2cd21b5ed6cb6b8acfcdd3937c0d5de1fb6c2e1c3b26d462a7be8")
}

func TestInsertDigests(t *testing.T) {
	for arity, want := range map[int]string{
		2: "f4b0d5e0b6c99b497c50a75201845e560f612088616b0f67820fe289b0fa361d",
		8: "168d07711a00da9750e98b8181900b59c27a1981b6b94aa9b57bb4a0364df9e0",
	} {
		_, _, shape := insertCase(t, arity, 1)
		assertDigest(t, shape, want)
	}
}

func TestInsertFlippedPick(t *testing.T) {
	// Tampering with pick result p1 (aux 6+3 = 9) of insert_4 breaks its row 2+3 = 5.
	build := func(cs r1cs.ConstraintSystem) {
		in := []AllocatedNum{AllocNum(cs, frU64(5)), AllocNum(cs, frU64(6)), AllocNum(cs, frU64(7)), AllocNum(cs, frU64(8))}
		bits := []Boolean{AllocBit(cs, true).Is(), AllocBit(cs, false).Is()}
		if _, err := Insert(cs, in[0], bits, in[1:]); err != nil {
			t.Fatal(err)
		}
	}
	if got := failingRow(t, 9, build); got != 5 {
		t.Errorf("failing row %d, want 5", got)
	}
}

func TestInsertBadShape(t *testing.T) {
	cs := r1cs.NewChecker()
	x := AllocNum(cs, frU64(1))
	bits := []Boolean{AllocBit(cs, true).Is()}
	if _, err := Insert(cs, x, bits, []AllocatedNum{x, x}); !errors.Is(err, ErrInsertShape) {
		t.Errorf("3 slots with 1 bit: err %v", err)
	}
	if _, err := Select(cs, []AllocatedNum{x, x, x}, bits); !errors.Is(err, ErrInsertShape) {
		t.Errorf("select 3 with 1 bit: err %v", err)
	}
	three := []Boolean{Constant(true), AllocBit(cs, true).Is(), AllocBit(cs, true).Is()}
	if _, err := Insert(cs, x, three, make([]AllocatedNum, 7)); !errors.Is(err, ErrInsertShape) {
		t.Errorf("insert_8 with a constant low bit: err %v", err)
	}
}

func TestSelect(t *testing.T) {
	for size := 2; size <= 16; size *= 2 {
		for index := range size {
			var got AllocatedNum
			shape := mustSynth(t, func(cs r1cs.ConstraintSystem) {
				from := make([]AllocatedNum, size)
				for i := range from {
					from[i] = AllocNum(cs, frU64(uint64(i*i+3)))
				}
				var bits []Boolean
				for j := 0; 1<<j < size; j++ {
					bits = append(bits, AllocBit(cs, index>>j&1 == 1).Is())
				}
				var err error
				if got, err = Select(cs, from, bits); err != nil {
					t.Fatal(err)
				}
			})
			want := frU64(uint64(index*index + 3))
			if !got.Value.Equal(&want) {
				t.Errorf("select %d of %d = %s", index, size, got.Value.String())
			}
			bitsCount := 0
			for 1<<bitsCount < size {
				bitsCount++
			}
			if rows := shape.NumConstraints - bitsCount; rows != size-1 {
				t.Errorf("select of %d: %d rows, want %d", size, rows, size-1)
			}
		}
	}
}

func TestConditionallyReverse(t *testing.T) {
	for _, cond := range []bool{false, true} {
		var c, d AllocatedNum
		shape := mustSynth(t, func(cs r1cs.ConstraintSystem) {
			a, b := AllocNum(cs, frU64(1)), AllocNum(cs, frU64(2))
			c, d = ConditionallyReverse(cs, a, b, AllocBit(cs, cond).Is())
		})
		wantC, wantD := frU64(1), frU64(2)
		if cond {
			wantC, wantD = wantD, wantC
		}
		if !c.Value.Equal(&wantC) || !d.Value.Equal(&wantD) {
			t.Errorf("cond %v: got (%s, %s)", cond, c.Value.String(), d.Value.String())
		}
		a, b, bit := aux(0), aux(1), aux(2)
		assertRow(t, shape, 1, lcOf(tm{a, 1}, tm{b, -1}), lcOf(tm{bit, 1}), lcOf(tm{a, 1}, tm{aux(3), -1}))
		assertRow(t, shape, 2, lcOf(tm{b, 1}, tm{a, -1}), lcOf(tm{bit, 1}), lcOf(tm{b, 1}, tm{aux(4), -1}))
	}
}

func TestNumHelpers(t *testing.T) {
	x, y := randFr(), randFr()
	var sum, diff, prod AllocatedNum
	shape := mustSynth(t, func(cs r1cs.ConstraintSystem) {
		a, b := AllocNum(cs, x), AllocNum(cs, y)
		sum = Add(cs, a, b)
		diff = Sub(cs, a, b)
		prod = Mul(cs, a, b)
		Equal(cs, sum, sum)
		a.Inputize(cs)
	})
	assertSizes(t, shape, 5, 5, 2)
	a, b := aux(0), aux(1)
	assertRow(t, shape, 0, lcOf(tm{a, 1}, tm{b, 1}), lcOf(tm{one, 1}), lcOf(tm{aux(2), 1}))
	assertRow(t, shape, 1, lcOf(tm{aux(3), 1}, tm{b, 1}), lcOf(tm{one, 1}), lcOf(tm{a, 1}))
	assertRow(t, shape, 2, lcOf(tm{a, 1}), lcOf(tm{b, 1}), lcOf(tm{aux(4), 1}))
	assertRow(t, shape, 4, lcOf(tm{r1cs.Input(1), 1}), lcOf(tm{one, 1}), lcOf(tm{a, 1}))
	var ws, wd, wp = x, x, x
	ws.Add(&x, &y)
	wd.Sub(&x, &y)
	wp.Mul(&x, &y)
	if !sum.Value.Equal(&ws) || !diff.Value.Equal(&wd) || !prod.Value.Equal(&wp) {
		t.Error("num helper values wrong")
	}
}

// Two constructions: the hand-optimised insert_2/4/8 and upstream's general select-based
// insert put the same values in every slot for every index (their rows differ by design).
func TestInsertOptimisedEqualsGeneric(t *testing.T) {
	for _, arity := range []int{2, 4, 8} {
		k := map[int]int{2: 1, 4: 2, 8: 3}[arity]
		for index := range arity {
			var fast, slow []AllocatedNum
			mustSynth(t, func(cs r1cs.ConstraintSystem) {
				in := make([]AllocatedNum, arity)
				for i := range in {
					in[i] = AllocNum(cs, randFr())
				}
				bits := make([]Boolean, k)
				for j := range bits {
					bits[j] = AllocBit(cs, index>>j&1 == 1).Is()
				}
				var err error
				if fast, err = Insert(cs, in[0], bits, in[1:]); err != nil {
					t.Fatal(err)
				}
				if slow, err = insertGeneric(cs, in[0], bits, in[1:]); err != nil {
					t.Fatal(err)
				}
			})
			for pos := range fast {
				if !fast[pos].Value.Equal(&slow[pos].Value) {
					t.Fatalf("arity %d index %d slot %d: optimised and generic differ", arity, index, pos)
				}
			}
		}
	}
}
