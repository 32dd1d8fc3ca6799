package graph

import (
	"encoding/binary"
	"encoding/hex"
	"testing"

	"golang.org/x/crypto/chacha20"
)

func keystream(seed [32]byte, rounds, words int) []byte {
	r := newChaCha(&seed, rounds)
	out := make([]byte, 0, 4*words)
	for i := 0; i < words; i++ {
		out = binary.LittleEndian.AppendUint32(out, r.Uint32())
	}
	return out
}

// TestChaCha8Vectors checks the 8-round core against draft-strombergson-chacha-test-vectors
// TC1 (256-bit zero key, zero IV, 8 rounds; two blocks, so the counter is exercised).
func TestChaCha8Vectors(t *testing.T) {
	const tc1 = "3e00ef2f895f40d67f5bb8e81f09a5a12c840ec3ce9a7f3b181be188ef711a1e" +
		"984ce172b9216f419f445367456d5619314a42a3da86b001387bfdb80e0cfe42" +
		"d2aefa0deaa5c151bf0adb6c01f2a5adc0fd581259f9a2aadcf20f8fd566a26b" +
		"5032ec38bbc5da98ee0c6f568b872a65a08abf251deb21bb4b56e5d8821e68aa"
	if got := hex.EncodeToString(keystream([32]byte{}, 8, 32)); got != tc1 {
		t.Fatalf("ChaCha8 TC1\n got %s\nwant %s", got, tc1)
	}
}

// TestChaChaCoreMatchesXCrypto runs the same core with 20 rounds against x/crypto's ChaCha20:
// with a zero nonce and fewer than 2^32 blocks the IETF layout equals rand_chacha's
// (64-bit counter, zero stream id), so the keystreams must agree.
func TestChaChaCoreMatchesXCrypto(t *testing.T) {
	var key [32]byte
	for i := range key {
		key[i] = byte(7*i + 3)
	}
	const words = 16 * 5
	c, err := chacha20.NewUnauthenticatedCipher(key[:], make([]byte, 12))
	if err != nil {
		t.Fatal(err)
	}
	want := make([]byte, 4*words)
	c.XORKeyStream(want, want)
	if got := keystream(key, 20, words); hex.EncodeToString(got) != hex.EncodeToString(want) {
		t.Fatal("20-round core differs from x/crypto ChaCha20")
	}
}

// TestUint64SpansBlocks checks rand_core's next_u64 word order, also across a block boundary.
func TestUint64SpansBlocks(t *testing.T) {
	var seed [32]byte
	seed[0] = 1
	words := newChaCha(&seed, 8)
	pairs := newChaCha(&seed, 8)
	pairs.Uint32() // odd offset: the 8th draw straddles blocks 0 and 1
	words.Uint32()
	for i := 0; i < 20; i++ {
		lo, hi := words.Uint32(), words.Uint32()
		if got := pairs.Uint64(); got != uint64(hi)<<32|uint64(lo) {
			t.Fatalf("draw %d: %x, want %x", i, got, uint64(hi)<<32|uint64(lo))
		}
	}
}
