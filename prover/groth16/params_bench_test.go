package groth16

import (
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
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

// Per-point decoding cost without files, mappings or goroutines.
func BenchmarkDecodeG1Point(b *testing.B) {
	rng := rand.New(rand.NewPCG(63, 64))
	pts := tpG1s(rng, 1024)
	raw := make([]byte, 0, len(pts)*g1RawSize)
	for i := range pts {
		r := pts[i].RawBytes()
		raw = append(raw, r[:]...)
	}
	dst := make([]bls.G1Affine, len(pts))
	b.SetBytes(g1RawSize)
	i := 0
	for b.Loop() {
		if err := decodeG1Raw(&dst[i], (*[g1RawSize]byte)(raw[i*g1RawSize:]), false); err != nil {
			b.Fatal(err)
		}
		i = (i + 1) % len(pts)
	}
}

func BenchmarkDecodeG2Point(b *testing.B) {
	rng := rand.New(rand.NewPCG(65, 66))
	pts := tpG2s(rng, 1024)
	raw := make([]byte, 0, len(pts)*g2RawSize)
	for i := range pts {
		r := pts[i].RawBytes()
		raw = append(raw, r[:]...)
	}
	dst := make([]bls.G2Affine, len(pts))
	b.SetBytes(g2RawSize)
	i := 0
	for b.Loop() {
		if err := decodeG2Raw(&dst[i], (*[g2RawSize]byte)(raw[i*g2RawSize:]), false); err != nil {
			b.Fatal(err)
		}
		i = (i + 1) % len(pts)
	}
}
