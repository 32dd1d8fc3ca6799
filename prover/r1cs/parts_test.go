package r1cs

import (
	"errors"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// partedTest is a test system: a head of headIn inputs and headAux aux variables with
// rows among them, then parts of 2 inputs and aux aux variables each, whose rows mix the
// part's variables, head variables, ONE, repeated terms (merged by canonicalization) and
// coefficients drawn from a small shared pool and fresh ones, so that the joined
// coefficient table must follow the order of first appearance across parts. The parts
// are equal (same rows and terms, over their own variables) but for the fresh
// coefficients' values; part extraAt (if >= 1) enforces one row more.
type partedTest struct {
	seed                 uint64
	headIn, headAux, aux int
	extraAt              int
}

func (s *partedTest) layout(n int) PartsLayout {
	return PartsLayout{HeadInputs: s.headIn, HeadAux: s.headAux, N: n, InputsPer: 2, AuxPer: s.aux}
}

// headVars are the head's variables, as every synthesis numbers them.
func (s *partedTest) headVars() []Variable {
	var vs []Variable
	for i := range s.headIn {
		vs = append(vs, Input(1+i))
	}
	for i := range s.headAux {
		vs = append(vs, Aux(i))
	}
	return vs
}

// rows enforces count rows: their shape (sides, variables, pool coefficients) from rng,
// the fresh coefficients' values from vals.
func (s *partedTest) rows(cs ConstraintSystem, rng, vals *rand.Rand, own []Variable, count int) {
	pool := []uint64{3, 5, 7, 11}
	head := s.headVars()
	coeff := func() fr.Element {
		var c fr.Element
		if rng.IntN(3) == 0 {
			c.SetUint64(1000 + vals.Uint64N(1<<40)) // fresh
		} else {
			c.SetUint64(pool[rng.IntN(len(pool))])
		}
		if rng.IntN(4) == 0 {
			c.Neg(&c)
		}
		return c
	}
	side := func() *LC {
		var lc LC
		for range rng.IntN(4) {
			var v Variable
			switch u := rng.IntN(10); {
			case u == 0:
				v = One
			case u < 3 && len(head) > 0:
				v = head[rng.IntN(len(head))]
			default:
				v = own[rng.IntN(len(own))]
			}
			c := coeff()
			lc.AddTerm(v, &c)
			if rng.IntN(6) == 0 {
				lc.AddTerm(v, &c) // a repeated term
			}
		}
		if rng.IntN(8) == 0 {
			return nil
		}
		return &lc
	}
	for range count {
		cs.Enforce("row", side(), side(), side())
	}
}

func (s *partedTest) head(cs ConstraintSystem) error {
	rng := rand.New(rand.NewPCG(s.seed, 1<<40))
	var vs []Variable
	for range s.headIn {
		vs = append(vs, cs.AllocInput(fr.Element{}))
	}
	for range s.headAux {
		vs = append(vs, cs.Alloc(fr.Element{}))
	}
	if len(vs) > 0 {
		s.rows(cs, rng, rng, vs, 7)
	}
	return nil
}

func (s *partedTest) part(cs ConstraintSystem, i int) error {
	rng := rand.New(rand.NewPCG(s.seed, 0))
	vals := rand.New(rand.NewPCG(s.seed, uint64(1+i)))
	own := []Variable{cs.AllocInput(fr.Element{}), cs.AllocInput(fr.Element{})}
	for range s.aux {
		own = append(own, cs.Alloc(fr.Element{}))
	}
	n := 5 + rng.IntN(20)
	if i == s.extraAt && i > 0 {
		n++
	}
	s.rows(cs, rng, vals, own, n)
	return nil
}

func (s *partedTest) whole(parts int) *Shape {
	r := NewRecorder(Capacity{})
	_ = s.head(r)
	for i := range parts {
		_ = s.part(r, i)
	}
	return r.Finish()
}

func TestJoinedPartsEqualWholeRecording(t *testing.T) {
	for _, tc := range []struct {
		sys   partedTest
		parts int
	}{
		{partedTest{seed: 1, aux: 37}, 1},
		{partedTest{seed: 2, aux: 64, headIn: 3, headAux: 5}, 2},
		{partedTest{seed: 3, aux: 1, headAux: 70}, 7},
		{partedTest{seed: 4, aux: 37, headIn: 1, headAux: 2}, 40},
	} {
		want := tc.sys.whole(tc.parts)
		for _, capacity := range []Capacity{{}, {Inputs: 1000, Aux: 5000, Constraints: 2000, NonZeros: 9000}} {
			for _, workers := range []int{1, 3} {
				got, err := RecordParts(capacity, tc.sys.layout(tc.parts), workers, tc.sys.head, tc.sys.part)
				if err != nil {
					t.Fatal(err)
				}
				if got.Digest != want.Digest {
					t.Errorf("seed %d, %d parts: digest differs", tc.sys.seed, tc.parts)
				}
				if !reflect.DeepEqual(got.Sizes, want.Sizes) || !reflect.DeepEqual(got.Coeffs, want.Coeffs) {
					t.Errorf("seed %d, %d parts: sizes or coefficient table differ", tc.sys.seed, tc.parts)
				}
				for name, pair := range map[string][2]Bitmap{
					"AAux": {got.AAux, want.AAux}, "BAux": {got.BAux, want.BAux}, "BInput": {got.BInput, want.BInput},
				} {
					if pair[0].Len != pair[1].Len || !reflect.DeepEqual(pair[0].Words[:(pair[0].Len+63)/64], pair[1].Words[:(pair[1].Len+63)/64]) {
						t.Errorf("seed %d, %d parts: density %s differs", tc.sys.seed, tc.parts, name)
					}
				}
			}
		}
	}
}

func TestRecordPartsSizeMismatch(t *testing.T) {
	sys := partedTest{seed: 5, aux: 10, headAux: 4}
	l := sys.layout(6)
	l.AuxPer = 11
	if _, err := RecordParts(Capacity{}, l, 2, sys.head, sys.part); !errors.Is(err, ErrPartSize) {
		t.Errorf("parts of other sizes: got %v, want ErrPartSize", err)
	}
	l = sys.layout(6)
	l.HeadAux = 3
	if _, err := RecordParts(Capacity{}, l, 2, sys.head, sys.part); !errors.Is(err, ErrPartSize) {
		t.Errorf("head of another size: got %v, want ErrPartSize", err)
	}
	sys.extraAt = 4 // a part with a row more than part 0 does not fit its window
	if _, err := RecordParts(Capacity{}, sys.layout(6), 2, sys.head, sys.part); !errors.Is(err, ErrPartSize) {
		t.Errorf("part of more rows: got %v, want ErrPartSize", err)
	}
}

func TestPartOutsideReferenceAndOrder(t *testing.T) {
	l := PartsLayout{HeadAux: 2, N: 3, InputsPer: 1, AuxPer: 4}
	p := NewPartRecorder(Capacity{}, l, 1) // aux 6..9
	x := p.Alloc(fr.Element{})
	var a, b LC
	a.Add(x)
	b.Add(Aux(3)) // part 0's variable
	p.Enforce("row", &a, &b, nil)
	j := NewJoiner(Capacity{})
	if err := j.Add(p); !errors.Is(err, ErrPartReference) {
		t.Errorf("outside reference: got %v, want ErrPartReference", err)
	}
	q := NewPartRecorder(Capacity{}, PartsLayout{HeadAux: 1, N: 1}, 0) // the recording is at aux 0
	q.Alloc(fr.Element{})
	if err := j.Add(q); !errors.Is(err, ErrPartOrder) {
		t.Errorf("misplaced part: got %v, want ErrPartOrder", err)
	}
}

func TestBitmapAppendBits(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 9))
	for range 200 {
		var got, want Bitmap
		for range 1 + rng.IntN(5) {
			var o Bitmap
			n := rng.IntN(200)
			for range n {
				bit := rng.IntN(2) == 1
				o.Append(bit)
				want.Append(bit)
			}
			got.AppendBits(o)
		}
		if got.Len != want.Len || !reflect.DeepEqual(got.Words, want.Words) {
			t.Fatalf("AppendBits: %d bits %x, want %d bits %x", got.Len, got.Words, want.Len, want.Words)
		}
	}
}
