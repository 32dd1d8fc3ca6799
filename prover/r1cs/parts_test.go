package r1cs

import (
	"errors"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// partedSystem synthesizes part i of a test system: a few inputs and aux, rows whose sides
// mix the part's variables, ONE, repeated terms (merged by canonicalization) and
// coefficients drawn from a small shared pool and fresh ones, so that the joined
// coefficient table must follow the order of first appearance across parts.
func partedSystem(cs ConstraintSystem, seed uint64, i int) {
	rng := rand.New(rand.NewPCG(seed, uint64(i)))
	pool := []uint64{3, 5, 7, 11}
	coeff := func() fr.Element {
		var c fr.Element
		if rng.IntN(3) == 0 {
			c.SetUint64(1000 + rng.Uint64N(1<<40)) // fresh
		} else {
			c.SetUint64(pool[rng.IntN(len(pool))])
		}
		if rng.IntN(4) == 0 {
			c.Neg(&c)
		}
		return c
	}
	var vars []Variable
	for range 1 + i%2 {
		vars = append(vars, cs.AllocInput(fr.Element{}))
	}
	nAux := 3 + rng.IntN(70) // parts of different sizes: density bits at every alignment
	for range nAux {
		vars = append(vars, cs.Alloc(fr.Element{}))
	}
	side := func() *LC {
		var lc LC
		for range rng.IntN(4) {
			v := One
			if rng.IntN(5) != 0 {
				v = vars[rng.IntN(len(vars))]
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
	for range 5 + rng.IntN(20) {
		cs.Enforce("row", side(), side(), side())
	}
}

func recordWhole(seed uint64, parts int) *Shape {
	r := NewRecorder(Capacity{})
	for i := range parts {
		partedSystem(r, seed, i)
	}
	return r.Finish()
}

func recordInParts(t *testing.T, seed uint64, parts int, capacity Capacity) *Shape {
	t.Helper()
	j := NewJoiner(capacity)
	recs := make([]*PartRecorder, parts)
	// Synthesize every part first (concurrent workers would, at offsets known in
	// advance), then join in order.
	in, aux := 1, 0
	for i := range parts {
		recs[i] = NewPartRecorder(Capacity{}, in, aux)
		partedSystem(recs[i], seed, i)
		in += recs[i].Sizes().NumInputs
		aux += recs[i].Sizes().NumAux
	}
	for i, p := range recs {
		if err := j.Add(p); err != nil {
			t.Fatalf("part %d: %v", i, err)
		}
	}
	return j.Finish()
}

func TestJoinedPartsEqualWholeRecording(t *testing.T) {
	for _, tc := range []struct {
		seed  uint64
		parts int
	}{{1, 1}, {2, 2}, {3, 7}, {4, 40}} {
		want := recordWhole(tc.seed, tc.parts)
		for _, capacity := range []Capacity{{}, {Inputs: 1000, Aux: 5000, Constraints: 2000, NonZeros: 9000}} {
			got := recordInParts(t, tc.seed, tc.parts, capacity)
			if got.Digest != want.Digest {
				t.Errorf("seed %d, %d parts: digest differs", tc.seed, tc.parts)
			}
			if !reflect.DeepEqual(got.Sizes, want.Sizes) || !reflect.DeepEqual(got.Coeffs, want.Coeffs) {
				t.Errorf("seed %d, %d parts: sizes or coefficient table differ", tc.seed, tc.parts)
			}
			for name, pair := range map[string][2]Bitmap{
				"AAux": {got.AAux, want.AAux}, "BAux": {got.BAux, want.BAux}, "BInput": {got.BInput, want.BInput},
			} {
				if pair[0].Len != pair[1].Len || !reflect.DeepEqual(pair[0].Words[:(pair[0].Len+63)/64], pair[1].Words[:(pair[1].Len+63)/64]) {
					t.Errorf("seed %d, %d parts: density %s differs", tc.seed, tc.parts, name)
				}
			}
		}
	}
}

func TestPartOutsideReferenceAndOrder(t *testing.T) {
	p := NewPartRecorder(Capacity{}, 3, 10)
	x := p.Alloc(fr.Element{})
	var a, b LC
	a.Add(x)
	b.Add(Aux(4)) // a previous part's variable
	p.Enforce("row", &a, &b, nil)
	j := NewJoiner(Capacity{})
	if err := j.Add(p); !errors.Is(err, ErrPartReference) {
		t.Errorf("outside reference: got %v, want ErrPartReference", err)
	}
	q := NewPartRecorder(Capacity{}, 1, 1) // the recording is at aux 0
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
