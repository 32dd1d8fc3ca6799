package r1cs

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"hash"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// Matrix is one side (A, B or C) of a recorded system in CSR form. Row j's terms are
// Col[RowPtr[j]:RowPtr[j+1]] (columns of z = inputs ‖ aux, increasing) with coefficients
// Coeffs[Coeff[k]] from the Shape's coefficient table.
type Matrix struct {
	RowPtr []uint64
	Col    []uint32
	Coeff  []uint32
}

// NonZeros is the number of stored terms.
func (m *Matrix) NonZeros() int { return len(m.Col) }

// Coefficient-table slots fixed for every shape: the evaluator adds and subtracts
// without a multiplication for them.
const (
	coeffOneIdx uint32 = iota
	coeffMinusOneIdx
)

// Shape is a recorded R1CS: the three matrices over all QAP rows (the circuit's rows
// followed by one row per input, A = input, B = C = 0), the coefficient table, the density
// bitmaps that select the a / b_g1 / b_g2 parameter points, and a digest of all of it.
type Shape struct {
	Sizes
	A, B, C Matrix
	Coeffs  []fr.Element

	Density

	// Digest is SHA-256 over the sizes, the three matrices and the coefficient table:
	// two systems with equal digests are the same R1CS, allocation order included.
	Digest [32]byte
}

// Counts returns the sizes and density popcounts.
func (s *Shape) Counts() Counts {
	return s.Density.Counts(s.Sizes)
}

// Row returns row j's three sides as canonical linear combinations (for tests and error
// reports; it allocates).
func (s *Shape) Row(j int) (a, b, c LC) {
	return s.rowOf(&s.A, j), s.rowOf(&s.B, j), s.rowOf(&s.C, j)
}

func (s *Shape) rowOf(m *Matrix, j int) LC {
	lo, hi := m.RowPtr[j], m.RowPtr[j+1]
	lc := make(LC, 0, hi-lo)
	for k := lo; k < hi; k++ {
		col := int(m.Col[k])
		v := Input(col)
		if col >= s.NumInputs {
			v = Aux(col - s.NumInputs)
		}
		lc = append(lc, Term{Var: v, Coeff: s.Coeffs[m.Coeff[k]]})
	}
	return lc
}

// Validate checks the internal consistency of a shape (e.g. one read back from a cache).
func (s *Shape) Validate() error {
	rows := s.Rows()
	cols := uint64(s.NumInputs + s.NumAux)
	for name, m := range map[string]*Matrix{"A": &s.A, "B": &s.B, "C": &s.C} {
		if len(m.RowPtr) != rows+1 || m.RowPtr[0] != 0 || m.RowPtr[rows] != uint64(len(m.Col)) || len(m.Coeff) != len(m.Col) {
			return fmt.Errorf("r1cs: shape matrix %s: inconsistent CSR arrays", name)
		}
		for j := 0; j < rows; j++ {
			if m.RowPtr[j] > m.RowPtr[j+1] {
				return fmt.Errorf("r1cs: shape matrix %s: row pointer %d decreases", name, j)
			}
		}
		for k := range m.Col {
			if uint64(m.Col[k]) >= cols || int(m.Coeff[k]) >= len(s.Coeffs) {
				return fmt.Errorf("r1cs: shape matrix %s: term %d out of range", name, k)
			}
		}
	}
	if s.AAux.Len != s.NumAux || s.BAux.Len != s.NumAux || s.BInput.Len != s.NumInputs {
		return fmt.Errorf("r1cs: shape density bitmaps do not match sizes")
	}
	if s.digest() != s.Digest {
		return fmt.Errorf("r1cs: shape digest mismatch")
	}
	return nil
}

func (s *Shape) digest() [32]byte {
	h := sha256.New()
	var buf [8]byte
	u64 := func(v uint64) { binary.LittleEndian.PutUint64(buf[:], v); h.Write(buf[:]) }
	u64(uint64(s.NumInputs))
	u64(uint64(s.NumAux))
	u64(uint64(s.NumConstraints))
	for _, m := range []*Matrix{&s.A, &s.B, &s.C} {
		hashU64s(h, m.RowPtr)
		hashU32s(h, m.Col)
		hashU32s(h, m.Coeff)
	}
	u64(uint64(len(s.Coeffs)))
	for i := range s.Coeffs {
		b := s.Coeffs[i].Bytes()
		h.Write(b[:])
	}
	var d [32]byte
	h.Sum(d[:0])
	return d
}

// hashU64s / hashU32s write little-endian values through a reused buffer.
func hashU64s(h hash.Hash, v []uint64) {
	var buf [8 * 1024]byte
	for len(v) > 0 {
		n := min(len(v), len(buf)/8)
		for i := 0; i < n; i++ {
			binary.LittleEndian.PutUint64(buf[8*i:], v[i])
		}
		h.Write(buf[:8*n])
		v = v[n:]
	}
}

func hashU32s(h hash.Hash, v []uint32) {
	var buf [4 * 2048]byte
	for len(v) > 0 {
		n := min(len(v), len(buf)/4)
		for i := 0; i < n; i++ {
			binary.LittleEndian.PutUint32(buf[4*i:], v[i])
		}
		h.Write(buf[:4*n])
		v = v[n:]
	}
}
