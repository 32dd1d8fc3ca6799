package pipeline

import (
	"runtime"
	"runtime/debug"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/snarkpipe/snarkpipe/prover/r1cs"
)

// porepLikeSizes are the buffer lengths of the PoRep recordings and the capacities a
// probe that counted raw terms gave them (measured on porep.Blank of the 2 KiB and 8 MiB
// configs, as sealer preloads them: raw terms over-size matrix A by 38.8 % / 37.6 %, B
// and C are exact, the coefficient table grows by appending). The probe now counts merged
// terms, so this is the trim's cost when a recorder is over-sized (a recorder that grows,
// or that raw counts sized). prover/pipeline may not import sealer, so the benchmark
// builds shapes of these sizes instead of recording the circuits.
var porepLikeSizes = []struct {
	name               string
	rows               int
	aLen, aCap         int
	bLen, cLen         int
	coeffLen, coeffCap int
	aux                int
}{
	{"porep-2KiB-like", 2_687_961, 6_421_005, 8_909_349, 2_689_006, 5_824_682, 1526, 1792, 2_687_000},
	{"porep-8MiB-like", 3_844_969, 9_388_453, 12_922_453, 3_847_886, 8_234_882, 1526, 1792, 3_844_000},
}

// BenchmarkTrimRecording times trimRecording on shapes with the PoRep recordings' sizes
// and spare capacity, and reports what it copies, what it gives back, and the heap it
// adds while copying (the new buffers; the old ones are garbage afterwards).
//
//	go test -run xxx -bench TrimRecording -benchtime 5x ./prover/pipeline/
func BenchmarkTrimRecording(b *testing.B) {
	for _, sz := range porepLikeSizes {
		b.Run(sz.name, func(b *testing.B) {
			var freed, copied int64
			var peak uint64
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				s := porepLikeShape(sz.rows, sz.aLen, sz.aCap, sz.bLen, sz.cLen, sz.coeffLen, sz.coeffCap, sz.aux)
				before, used := s.HeldBytes(), lengthBytes(s)
				debug.FreeOSMemory() // the copies fault in fresh pages, as in a new process
				stop := sampleHeapGrowth()
				b.StartTimer()
				trimRecording(s)
				b.StopTimer()
				peak = max(peak, stop())
				freed = before - s.HeldBytes()
				copied = int64(sz.aLen)*8 + int64(sz.coeffLen)*32 // A's Col and Coeff, the coefficient table
				if s.HeldBytes() != used {
					b.Fatalf("holds %d bytes after the trim, used %d", s.HeldBytes(), used)
				}
				runtime.KeepAlive(s)
			}
			b.ReportMetric(float64(copied)/(1<<20), "copied-MiB")
			b.ReportMetric(float64(freed)/(1<<20), "freed-MiB")
			b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
		})
	}
}

// porepLikeShape is a shape whose buffers have the given lengths and capacities (the
// contents are irrelevant to the trim; the pages are written so that they are resident).
func porepLikeShape(rows, aLen, aCap, bLen, cLen, coeffLen, coeffCap, aux int) *r1cs.Shape {
	s := &r1cs.Shape{}
	s.NumConstraints = rows - 1
	s.NumInputs = 1
	s.NumAux = aux
	for i, m := range []*r1cs.Matrix{&s.A, &s.B, &s.C} {
		n, c := []int{aLen, bLen, cLen}[i], []int{aCap, bLen, cLen}[i]
		m.RowPtr = filled(make([]uint64, rows+1))
		m.Col = filled(make([]uint32, n, c))
		m.Coeff = filled(make([]uint32, n, c))
	}
	s.Coeffs = make([]fr.Element, coeffLen, coeffCap)
	words := (aux + 63) / 64
	s.AAux = r1cs.Bitmap{Words: filled(make([]uint64, words)), Len: aux}
	s.BAux = r1cs.Bitmap{Words: filled(make([]uint64, words)), Len: aux}
	s.BInput = r1cs.Bitmap{Words: make([]uint64, 1), Len: 1}
	return s
}

// filled writes every element of v (so its pages are resident) and returns it.
func filled[T uint32 | uint64](v []T) []T {
	for i := range v {
		v[i] = T(i)
	}
	return v
}

// lengthBytes is what s's buffers hold counted by length (HeldBytes after an exact trim).
func lengthBytes(s *r1cs.Shape) int64 {
	var n int64
	for _, m := range []*r1cs.Matrix{&s.A, &s.B, &s.C} {
		n += int64(len(m.RowPtr))*8 + int64(len(m.Col))*4 + int64(len(m.Coeff))*4
	}
	n += int64(len(s.Coeffs)) * 32
	for _, b := range []*r1cs.Bitmap{&s.AAux, &s.BInput, &s.BAux} {
		n += int64(len(b.Words)) * 8
	}
	return n
}
