package gadget

import (
	"math/rand/v2"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

var poseidonBenchSink fr.Element

func benchmarkPoseidon(b *testing.B, arity int) {
	c := poseidonForTest(b, arity)
	in := poseidonRandom(rand.New(rand.NewPCG(3, 4)), arity)
	b.ReportAllocs()
	for b.Loop() {
		if err := c.Hash(&poseidonBenchSink, in); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkPoseidon2(b *testing.B)  { benchmarkPoseidon(b, 2) }
func BenchmarkPoseidon8(b *testing.B)  { benchmarkPoseidon(b, 8) }
func BenchmarkPoseidon11(b *testing.B) { benchmarkPoseidon(b, 11) }

func BenchmarkHashPoseidon2(b *testing.B) {
	in := poseidonRandom(rand.New(rand.NewPCG(5, 6)), 2)
	b.ReportAllocs()
	for b.Loop() {
		poseidonBenchSink = HashPoseidon2(&in[0], &in[1])
	}
}

// TestPoseidonHashAllocationFree pins the zero-allocation property the benchmarks report.
func TestPoseidonHashAllocationFree(t *testing.T) {
	for _, arity := range []int{2, 8, 11, 36} {
		c := poseidonForTest(t, arity)
		in := poseidonAscending(arity)
		var d fr.Element
		if n := testing.AllocsPerRun(10, func() { _ = c.Hash(&d, in) }); n != 0 {
			t.Errorf("arity %d: %v allocs per Hash", arity, n)
		}
	}
	a, b := poseidonAscending(2)[0], poseidonAscending(2)[1]
	if n := testing.AllocsPerRun(10, func() { poseidonBenchSink = HashPoseidon2(&a, &b) }); n != 0 {
		t.Errorf("HashPoseidon2: %v allocs", n)
	}
}
