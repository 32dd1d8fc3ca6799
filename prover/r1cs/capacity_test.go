package r1cs

import (
	"reflect"
	"testing"
)

// Per-matrix capacities size each matrix's buffers; without them each gets a third of
// NonZeros. Either way the recording is the same.
func TestRecorderMatrixCapacity(t *testing.T) {
	record := func(c Capacity) *Shape {
		r := NewRecorder(c)
		x := r.Alloc(frOne)
		var a, b, o LC
		a.Add(x)
		a.Add(One)
		b.Add(x)
		o.Add(x)
		r.Enforce("row", &a, &b, &o)
		return r.Finish()
	}
	even := NewRecorder(Capacity{NonZeros: 30})
	if got := cap(even.shape.B.Col); got != 10 {
		t.Fatalf("B capacity from NonZeros/3: %d, want 10", got)
	}
	split := NewRecorder(Capacity{NonZeros: 30, MatrixNonZeros: [3]int{17, 5, 0}})
	for i, want := range []int{17, 5, 10} {
		m := []*Matrix{&split.shape.A, &split.shape.B, &split.shape.C}[i]
		if cap(m.Col) != want || cap(m.Coeff) != want {
			t.Errorf("matrix %d capacity %d/%d, want %d", i, cap(m.Col), cap(m.Coeff), want)
		}
	}
	if !reflect.DeepEqual(record(Capacity{}), record(Capacity{MatrixNonZeros: [3]int{1, 1, 1}})) {
		t.Fatal("capacity changed the recording")
	}
}
