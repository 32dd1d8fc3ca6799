package r1cs

import (
	"unsafe"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// A recorder is pre-sized from counts taken before terms are merged (raw terms bound the
// merged ones), so a finished recording can keep spare capacity: ~38 % of matrix A on the
// PoRep circuit. A resident recording lives as long as the process, and its spare
// capacity is host memory that no reservation accounts for. Compact gives it back.

// HeldBytes is the memory held by s's buffers, counted by capacity (what the process
// pays), not by length (what the shape file stores).
func (s *Shape) HeldBytes() int64 {
	var n int64
	for _, m := range []*Matrix{&s.A, &s.B, &s.C} {
		n += int64(cap(m.RowPtr))*8 + int64(cap(m.Col))*4 + int64(cap(m.Coeff))*4
	}
	n += int64(cap(s.Coeffs)) * int64(unsafe.Sizeof(fr.Element{}))
	for _, b := range []*Bitmap{&s.AAux, &s.BInput, &s.BAux} {
		n += int64(cap(b.Words)) * 8
	}
	return n
}

// Compact copies each buffer of s whose spare capacity exceeds slack times its length
// (slack 0.05: more than 5 % unused) into a buffer of exactly its length, and returns the
// bytes of capacity given up. The shape's contents, and so its digest, do not change;
// buffers within the slack are left as they are (copying them would cost more than it
// returns). The old buffers become garbage: the copy briefly holds both, one buffer at a
// time. s must not be in use by another goroutine.
func (s *Shape) Compact(slack float64) int64 {
	var freed int64
	for _, m := range []*Matrix{&s.A, &s.B, &s.C} {
		freed += compactSlice(&m.RowPtr, slack, 8)
		freed += compactSlice(&m.Col, slack, 4)
		freed += compactSlice(&m.Coeff, slack, 4)
	}
	freed += compactSlice(&s.Coeffs, slack, int64(unsafe.Sizeof(fr.Element{})))
	for _, b := range []*Bitmap{&s.AAux, &s.BInput, &s.BAux} {
		freed += compactSlice(&b.Words, slack, 8)
	}
	return freed
}

// compactSlice replaces *v by an exact-size copy when its spare capacity exceeds slack
// times its length; it returns the bytes given up (elemBytes per element).
func compactSlice[T any](v *[]T, slack float64, elemBytes int64) int64 {
	n, c := len(*v), cap(*v)
	if float64(c-n) <= slack*float64(n) {
		return 0
	}
	exact := make([]T, n)
	copy(exact, *v)
	*v = exact
	return int64(c-n) * elemBytes
}
