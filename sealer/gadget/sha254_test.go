package gadget

import (
	"crypto/sha256"
	"encoding/hex"
	"math/rand/v2"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// zeroCommD hashes a SHA-256 tree of zero nodes up `levels` levels (spec §10).
func zeroCommD(levels int) [32]byte {
	var node [32]byte
	for range levels {
		node = NodeHash(&node, &node)
	}
	return node
}

func TestZeroCommD(t *testing.T) {
	// LE hex values from spec §10 (2 KiB and 128 bytes asserted upstream in
	// filecoin-proofs/tests/pieces.rs).
	cases := []struct {
		name   string
		levels int
		want   string
	}{
		{"level 1", 1, "f5a5fd42d16a20302798ef6ed309979b43003d2320d9f0e8ea9831a92759fb0b"},
		{"128 B", 2, "3731bb99ac689f66eef5973e4a94da188f4ddcae580724fc6f3fd60dfd488333"},
		{"2 KiB", 6, "fc7e928296e516faade986b28f92d44a4f24b935485223376a799027bc18f833"},
		{"8 MiB", 18, "65f29e5d98d246c38b388cfc06db1f6b021303c5a289000bdce832a9c3ec421c"},
		{"512 MiB", 24, "39560e7b13a93b07a243fd2720ffa7cb3e1d2e505ab3629e79f46313512cda06"},
		{"32 GiB", 30, "077e5fde35c50a9303a55009e3498a4ebedff39c42b710b730d8ec7ac7afa63e"},
		{"64 GiB", 31, "e64005a6bfe3777953b8ad6ef93f0fca1049b2041654f2a411f7702799cece02"},
	}
	for _, c := range cases {
		got := zeroCommD(c.levels)
		if hex.EncodeToString(got[:]) != c.want {
			t.Errorf("%s: comm_d %x, want %s", c.name, got, c.want)
		}
	}
}

func TestNodeHashIsTrimmedSHA256(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 200 {
		var l, r [32]byte
		fillRandom(rng, l[:])
		fillRandom(rng, r[:])
		want := sha256.Sum256(append(l[:], r[:]...))
		if want[31]&0xc0 == 0 {
			continue
		}
		got := NodeHash(&l, &r)
		if got[31] != want[31]&0x3f || string(got[:31]) != string(want[:31]) {
			t.Fatalf("NodeHash = %x, want %x with top bits cleared", got, want)
		}
		if s := Sha254(append(l[:], r[:]...)); s != got {
			t.Fatalf("Sha254 = %x, NodeHash = %x", s, got)
		}
	}
}

func TestNodeHashFrMatchesBytes(t *testing.T) {
	for range 100 {
		var a, b fr.Element
		a.MustSetRandom()
		b.MustSetRandom()
		la, lb := FrToBytesLE(&a), FrToBytesLE(&b)
		wantBytes := NodeHash(&la, &lb)
		want, err := FrFromBytesLE(&wantBytes)
		if err != nil {
			t.Fatal(err)
		}
		if got := NodeHashFr(&a, &b); !got.Equal(&want) {
			t.Fatalf("NodeHashFr = %s, want %s", got.String(), want.String())
		}
		if got := Sha254Fr(a, b); !got.Equal(&want) {
			t.Fatalf("Sha254Fr = %s, want %s", got.String(), want.String())
		}
	}
}

func TestFrFromBytesLERejectsNonCanonical(t *testing.T) {
	var b [32]byte
	for i := range b {
		b[i] = 0xff
	}
	if _, err := FrFromBytesLE(&b); err == nil {
		t.Fatal("2^256-1 accepted as a field element")
	}
}

func TestFrBitsLE(t *testing.T) {
	var x fr.Element
	x.SetUint64(0b1011)
	bits := FrBitsLE(&x)
	for i, b := range bits {
		want := i == 0 || i == 1 || i == 3
		if b != want {
			t.Fatalf("bit %d = %v, want %v", i, b, want)
		}
	}
}

// reverse_bit_numbering of the LE bits of x gives the SHA-256 message bits of x's LE repr.
func TestReverseBitNumberingGivesRepr(t *testing.T) {
	for range 50 {
		var x fr.Element
		x.MustSetRandom()
		bits := FrBitsLE(&x)
		msg := ReverseBitNumberingBools(bits[:])
		if len(msg) != 256 {
			t.Fatalf("len %d, want 256", len(msg))
		}
		repr := FrToBytesLE(&x)
		if got := BitsBEToBytes(msg); string(got) != string(repr[:]) {
			t.Fatalf("bytes %x, want %x", got, repr)
		}
		if got := BytesToBitsBE(repr[:]); string(boolsKey(got)) != string(boolsKey(msg)) {
			t.Fatal("BytesToBitsBE disagrees with reverse_bit_numbering")
		}
	}
}

func boolsKey(b []bool) []byte {
	out := make([]byte, len(b))
	for i, v := range b {
		if v {
			out[i] = 1
		}
	}
	return out
}

func fillRandom(rng *rand.Rand, b []byte) {
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
}

func TestNodeHashAllocatesNothing(t *testing.T) {
	var l, r [32]byte
	l[0], r[0] = 1, 2
	if n := testing.AllocsPerRun(100, func() { _ = NodeHash(&l, &r) }); n != 0 {
		t.Fatalf("NodeHash allocates %v times", n)
	}
	var a, b fr.Element
	a.SetUint64(3)
	b.SetUint64(4)
	if n := testing.AllocsPerRun(100, func() { _ = NodeHashFr(&a, &b) }); n != 0 {
		t.Fatalf("NodeHashFr allocates %v times", n)
	}
}

func BenchmarkSha254NodeHash(b *testing.B) {
	var l, r [32]byte
	l[0], r[0] = 1, 2
	b.ReportAllocs()
	for b.Loop() {
		l = NodeHash(&l, &r)
	}
}

func BenchmarkSha254NodeHashFr(b *testing.B) {
	var x, y fr.Element
	x.SetUint64(1)
	y.SetUint64(2)
	b.ReportAllocs()
	for b.Loop() {
		x = NodeHashFr(&x, &y)
	}
}
