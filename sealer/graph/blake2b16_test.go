package graph

import (
	"encoding/binary"
	"math/rand/v2"
	"testing"

	"golang.org/x/crypto/blake2b"
)

func TestBlake2bHead8(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 10000; i++ {
		a, b := rng.Uint64(), rng.Uint64()
		if i == 0 {
			a, b = 0, 0
		}
		var data [16]byte
		binary.BigEndian.PutUint64(data[:8], a)
		binary.BigEndian.PutUint64(data[8:], b)
		sum := blake2b.Sum512(data[:])
		if want := binary.BigEndian.Uint64(sum[:8]); blake2b512Head8(a, b) != want {
			t.Fatalf("(%x, %x): %x, want %x", a, b, blake2b512Head8(a, b), want)
		}
	}
}

func BenchmarkBlake2bHead8(b *testing.B) {
	x := uint64(1)
	for b.Loop() {
		x = blake2b512Head8(x, 7)
	}
}

func BenchmarkBlake2bSum512(b *testing.B) {
	var d [16]byte
	for b.Loop() {
		s := blake2b.Sum512(d[:])
		d[0] = s[0]
	}
}
