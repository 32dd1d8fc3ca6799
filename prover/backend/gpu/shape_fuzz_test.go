package gpu

import (
	"encoding/binary"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/snarkpipe/snarkpipe/prover/backend"
	"github.com/snarkpipe/snarkpipe/prover/r1cs"
	"github.com/snarkpipe/snarkpipe/prover/r1cs/r1cstest"
)

// FuzzCheckShape corrupts a recorded shape with (side, array, index, value) edits taken
// from the input and checks that checkShape, which guards every device upload, either
// refuses it or passes a shape whose every term indexes z and the coefficient table
// (host evaluation and the density index lists then run without a panic). No GPU needed.
func FuzzCheckShape(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{0, 1, 3, 0xff, 0xff, 0xff, 0xff, 0})
	f.Add([]byte{1, 0, 2, 9, 0, 0, 0, 0, 2, 2, 0, 1, 0, 0, 0, 0})
	f.Add([]byte{2, 2, 5, 0x40, 0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, edits []byte) {
		rec := r1cs.NewRecorder(r1cs.Capacity{})
		c := &r1cstest.Random{Seed: 1, Constraints: 12, Inputs: 2}
		if err := c.Synthesize(rec); err != nil {
			t.Fatal(err)
		}
		s := rec.Finish()
		for len(edits) >= 8 {
			side := []*r1cs.Matrix{&s.A, &s.B, &s.C}[int(edits[0])%3]
			idx := int(edits[2])
			v := binary.LittleEndian.Uint32(edits[3:7])
			switch edits[1] % 4 {
			case 0:
				if idx < len(side.RowPtr) {
					side.RowPtr[idx] = uint64(v)
				}
			case 1:
				if idx < len(side.Col) {
					side.Col[idx] = v
				}
			case 2:
				if idx < len(side.Coeff) {
					side.Coeff[idx] = v
				}
			case 3:
				if idx < len(side.RowPtr) {
					side.RowPtr = side.RowPtr[:idx]
				}
			}
			edits = edits[8:]
		}
		if checkShape(s) != nil {
			return
		}
		z := make([]fr.Element, s.NumInputs+s.NumAux)
		rows := s.Rows()
		a, b, cv := make([]fr.Element, rows), make([]fr.Element, rows), make([]fr.Element, rows)
		if err := s.Eval(z, a, b, cv, 1); err != nil {
			t.Fatalf("checkShape passed a shape Eval refuses: %v", err)
		}
		densityIndices(s)
	})
}

// FuzzPackedAux: Validate either refuses a packing or Unpack runs on it without a panic
// and gives N values.
func FuzzPackedAux(f *testing.F) {
	f.Add(5, []byte{0x1f}, []byte{0x02}, 3)
	f.Add(64, []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, []byte{}, 64)
	f.Add(0, []byte{}, []byte{}, 0)
	f.Add(-3, []byte{1}, []byte{1}, 1)
	f.Fuzz(func(t *testing.T, n int, field, ones []byte, values int) {
		if values < 0 || values > 1<<12 || n > 1<<12 {
			return
		}
		words := func(b []byte) []uint64 {
			out := make([]uint64, (len(b)+7)/8)
			for i, x := range b {
				out[i/8] |= uint64(x) << (8 * (i % 8))
			}
			return out
		}
		p := backend.PackedAux{N: n, Field: words(field), Ones: words(ones), Values: make([]fr.Element, values)}
		if p.Validate() != nil {
			return
		}
		if got := p.Unpack(); len(got) != n {
			t.Fatalf("Unpack gave %d values, want %d", len(got), n)
		}
	})
}
