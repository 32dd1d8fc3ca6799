package r1cs

import (
	"reflect"
	"testing"
)

// recordRows records n rows x_i·x_i = x_{i+1} (plus one term of ONE in A) into a recorder
// of the given capacity.
func recordRows(c Capacity, n int) *Shape {
	r := NewRecorder(c)
	x := r.Alloc(frOne)
	for i := 0; i < n; i++ {
		y := r.Alloc(frOne)
		var a, b, o LC
		a.Add(x)
		a.Add(One)
		b.Add(x)
		o.Add(y)
		r.Enforce("row", &a, &b, &o)
		x = y
	}
	return r.Finish()
}

func matrices(s *Shape) []*Matrix { return []*Matrix{&s.A, &s.B, &s.C} }

// An over-sized recording is compacted to exact buffers, keeps its contents and digest,
// and reports the capacity it gave up; HeldBytes follows.
func TestCompactTrimsSpareCapacity(t *testing.T) {
	const rows = 1000
	exact := recordRows(Capacity{}, rows)
	s := recordRows(Capacity{Inputs: 1, Aux: rows + 1, Constraints: rows, MatrixNonZeros: [3]int{3 * rows, rows, 2 * rows}}, rows)
	before := s.HeldBytes()
	wantFreed := int64(cap(s.A.Col)-len(s.A.Col))*8 + int64(cap(s.C.Col)-len(s.C.Col))*8 + int64(cap(s.Coeffs)-len(s.Coeffs))*32
	freed := s.Compact(0.05)
	if freed != wantFreed {
		t.Fatalf("freed %d bytes, want %d", freed, wantFreed)
	}
	if s.HeldBytes() != before-freed {
		t.Fatalf("HeldBytes %d after compacting, want %d", s.HeldBytes(), before-freed)
	}
	for i, m := range matrices(s) {
		if cap(m.Col) != len(m.Col) || cap(m.Coeff) != len(m.Coeff) || cap(m.RowPtr) != len(m.RowPtr) {
			t.Errorf("matrix %d: capacities %d/%d/%d, lengths %d/%d/%d", i, cap(m.RowPtr), cap(m.Col), cap(m.Coeff), len(m.RowPtr), len(m.Col), len(m.Coeff))
		}
	}
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(s.Sizes, exact.Sizes) || s.Digest != exact.Digest || !reflect.DeepEqual(s.Density, exact.Density) {
		t.Fatal("compacting changed the recording")
	}
	for i := range matrices(s) {
		if !reflect.DeepEqual(*matrices(s)[i], *matrices(exact)[i]) {
			t.Fatalf("matrix %d changed", i)
		}
	}
	if again := s.Compact(0.05); again != 0 {
		t.Fatalf("second Compact freed %d bytes", again)
	}
}

// Buffers whose spare capacity is within the slack are not copied.
func TestCompactKeepsBuffersWithinSlack(t *testing.T) {
	const rows = 1000
	// A holds 2 terms per row plus one per input: 2001; 2050 is 2.4 % over.
	s := recordRows(Capacity{Inputs: 1, Aux: rows + 1, Constraints: rows, MatrixNonZeros: [3]int{2050, rows, rows}}, rows)
	col := &s.A.Col[0]
	if got := s.Compact(0.05); got != int64(cap(s.Coeffs)-len(s.Coeffs))*32 {
		t.Fatalf("freed %d bytes: only the coefficient table is over the slack", got)
	}
	if &s.A.Col[0] != col || cap(s.A.Col) != 2050 {
		t.Fatal("a buffer within the slack was copied")
	}
	if s.Compact(0) != int64(2050-len(s.A.Col))*8 || cap(s.A.Col) != len(s.A.Col) {
		t.Fatal("slack 0 leaves spare capacity")
	}
}
