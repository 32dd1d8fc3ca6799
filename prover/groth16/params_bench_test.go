package groth16

import (
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
)

// Benchmark files: ~2^18 G1 points (h) or 2^15 G2 points (b_g2), written into the
// benchmark's temporary directory. Reads hit the page cache, so they measure decoding
// (big-endian → Montgomery, canonical and on-curve checks), not the disk.
func benchFile(b *testing.B, g2 bool) string {
	b.Helper()
	s := ShapeCounts{Inputs: 1, Aux: 1, DomainSize: 1 << 18, AAux: 0, BInput: 1, BAux: 0}
	if g2 {
		s = ShapeCounts{Inputs: 1, Aux: 1, DomainSize: 2, AAux: 0, BInput: 1, BAux: 1<<15 - 1}
	}
	path := filepath.Join(b.TempDir(), "bench.params")
	rng := rand.New(rand.NewPCG(61, 62))
	if err := tpParams(rng, s, false).WriteFile(path); err != nil {
		b.Fatal(err)
	}
	return path
}

func benchRead(b *testing.B, g2 bool, opts ReadOptions) {
	path := benchFile(b, g2)
	st, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(st.Size())
	for b.Loop() {
		p, err := ReadParams(path, opts)
		if err != nil {
			b.Fatal(err)
		}
		p.Close()
	}
}

func BenchmarkReadParamsG1(b *testing.B) { benchRead(b, false, ReadOptions{}) }
func BenchmarkReadParamsG2(b *testing.B) { benchRead(b, true, ReadOptions{}) }
func BenchmarkReadParamsG1OneWorker(b *testing.B) {
	benchRead(b, false, ReadOptions{Workers: 1})
}
func BenchmarkReadParamsG1Subgroup(b *testing.B) {
	benchRead(b, false, ReadOptions{SubgroupCheck: true})
}
func BenchmarkReadParamsG2Subgroup(b *testing.B) {
	benchRead(b, true, ReadOptions{SubgroupCheck: true})
}

func BenchmarkFileDigest(b *testing.B) {
	path := benchFile(b, false)
	st, _ := os.Stat(path)
	b.SetBytes(st.Size())
	for b.Loop() {
		if _, err := FileDigest(path); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkWriteParamsG1(b *testing.B) {
	p, err := ReadParams(benchFile(b, false), ReadOptions{})
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	n, _ := p.WriteTo(io.Discard)
	b.SetBytes(n)
	for b.Loop() {
		if _, err := p.WriteTo(io.Discard); err != nil {
			b.Fatal(err)
		}
	}
}
