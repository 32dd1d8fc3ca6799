package gadget

import (
	"encoding/binary"
	"encoding/hex"
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// poseidonFrFromLimbs builds an element from 4 little-endian u64 limbs of its canonical value.
func poseidonFrFromLimbs(t *testing.T, limbs [4]uint64) fr.Element {
	t.Helper()
	var b [fr.Bytes]byte
	for i, l := range limbs {
		binary.LittleEndian.PutUint64(b[8*i:], l)
	}
	e, err := fr.LittleEndian.Element(&b)
	if err != nil {
		t.Fatalf("limbs %x: %v", limbs, err)
	}
	return e
}

// poseidonFrFromLEHex parses the 32-byte little-endian repr that Filecoin uses for domain values.
func poseidonFrFromLEHex(t *testing.T, s string) fr.Element {
	t.Helper()
	raw, err := hex.DecodeString(s)
	if err != nil || len(raw) != fr.Bytes {
		t.Fatalf("bad LE hex %q", s)
	}
	var b [fr.Bytes]byte
	copy(b[:], raw)
	e, err := fr.LittleEndian.Element(&b)
	if err != nil {
		t.Fatalf("LE hex %q: %v", s, err)
	}
	return e
}

func poseidonFrFromBEHex(t *testing.T, s string) fr.Element {
	t.Helper()
	var e fr.Element
	if _, err := e.SetString(s); err != nil {
		t.Fatalf("hex %q: %v", s, err)
	}
	return e
}

func poseidonForTest(t testing.TB, arity int) *PoseidonConstants {
	t.Helper()
	c, err := PoseidonFor(arity)
	if err != nil {
		t.Fatalf("PoseidonFor(%d): %v", arity, err)
	}
	return c
}

func poseidonAscending(n int) []fr.Element {
	out := make([]fr.Element, n)
	for i := range out {
		out[i].SetUint64(uint64(i))
	}
	return out
}

func poseidonRandom(rng *rand.Rand, n int) []fr.Element {
	out := make([]fr.Element, n)
	for i := range out {
		out[i].SetUint64(rng.Uint64())
		var hi fr.Element
		hi.SetUint64(rng.Uint64())
		out[i].Mul(&out[i], &hi) // spread over the whole field
	}
	return out
}

// TestPoseidonRoundNumbers pins neptune's calc_round_numbers(t, true) for the widths its
// test_round_numbers_against_known_values checks (spec §5.1 table, §11.2a).
func TestPoseidonRoundNumbers(t *testing.T) {
	cases := []struct{ t, rp int }{
		{2, 55}, {3, 55}, {4, 56}, {5, 56}, {6, 56}, {7, 56}, {8, 57}, {9, 57}, {10, 57},
		{11, 57}, {12, 57}, {13, 57}, {14, 57}, {15, 57}, {16, 59}, {17, 59}, {25, 59},
		{37, 60}, {65, 61},
	}
	for _, tc := range cases {
		rf, rp := poseidonRoundNumbers(tc.t)
		if rf != 8 || rp != tc.rp {
			t.Errorf("t=%d: (RF, RP) = (%d, %d), want (8, %d)", tc.t, rf, rp, tc.rp)
		}
	}
}

// TestPoseidonConstantCounts checks table sizes of spec §5.1/§5.2 for every arity.
func TestPoseidonConstantCounts(t *testing.T) {
	wantGrain := map[int]int{2: 189, 4: 320, 8: 585, 11: 780}
	for _, arity := range PoseidonArities {
		c := poseidonForTest(t, arity)
		tw := arity + 1
		if c.Width != tw || c.FullRounds != 8 {
			t.Errorf("arity %d: width %d RF %d", arity, c.Width, c.FullRounds)
		}
		if n := len(c.RoundConstants); n != tw*(c.FullRounds+c.PartialRounds) {
			t.Errorf("arity %d: %d round constants", arity, n)
		}
		if want, ok := wantGrain[arity]; ok && len(c.RoundConstants) != want {
			t.Errorf("arity %d: %d round constants, spec says %d", arity, len(c.RoundConstants), want)
		}
		if n := len(c.Compressed); n != c.FullRounds*tw+c.PartialRounds {
			t.Errorf("arity %d: %d compressed constants", arity, n)
		}
		if len(c.sparse) != c.PartialRounds {
			t.Errorf("arity %d: %d sparse matrices", arity, len(c.sparse))
		}
		tag := PoseidonMerkleTreeTag(arity)
		if !c.DomainTag.Equal(&tag) || !tag.IsUint64() || tag.Uint64() != 1<<arity-1 {
			t.Errorf("arity %d: tag %s", arity, c.DomainTag.String())
		}
	}
}

// TestPoseidonSpotConstants pins the §10 spot values: the first Grain constant and the
// last compressed constant of arities 2 and 8.
func TestPoseidonSpotConstants(t *testing.T) {
	cases := []struct {
		arity       int
		first, last string
	}{
		{2, "0x669f064bfa3ae17a23bd51861dbb4a24501eac92a2758b36a7320a009d6ed3d8",
			"0x1c84e3e9450113a4b5489decd8dcc8b25f057797f37899354931a0eea88d7d5d"},
		{8, "0x6ce90d12c4045fe08c3caddb776dd84ac52b4ae7e48cd49443984154f2f4c2f9",
			"0x1ef936f03c337433c2e5f3570555397ed790517b32bebaa823ab1c9d7f374cb3"},
	}
	for _, tc := range cases {
		c := poseidonForTest(t, tc.arity)
		first, last := poseidonFrFromBEHex(t, tc.first), poseidonFrFromBEHex(t, tc.last)
		if !c.RoundConstants[0].Equal(&first) {
			t.Errorf("arity %d: c[0] = %s", tc.arity, c.RoundConstants[0].Text(16))
		}
		if got := c.Compressed[len(c.Compressed)-1]; !got.Equal(&last) {
			t.Errorf("arity %d: last compressed = %s", tc.arity, got.Text(16))
		}
	}
}

// TestPoseidonDigestVectors: neptune's hash_values, preimage [0..arity−1] (§10, §11.2b).
func TestPoseidonDigestVectors(t *testing.T) {
	want := map[int][4]uint64{
		2:  {0x2e203c369a02e7ff, 0xa6fba9339d05a69d, 0x739e0fd902efe161, 0x396508d75e76a56b},
		4:  {0x019814ff6662075d, 0xfb6b4605bf1327ec, 0x00db3c6579229399, 0x58a54b10a9e5848a},
		8:  {0x2a9934f56d38a5e6, 0x4b682e9d9cc4aed9, 0x1201004211677077, 0x2394611da3a5de55},
		11: {0xcee3bbc32b693163, 0x09f3dcd8ccb08fc1, 0x6ca537e232ebe87a, 0x0c0fc1b2e5227f28},
		16: {0x1291c74060266d37, 0x5b8dbc6d30680a6f, 0xc1c2fb5a6f871e63, 0x2d3ae2663381ae8a},
		24: {0xd7ef3569f585b321, 0xc3e779f6468815b1, 0x066f39bf783f3d9f, 0x63beb8831f11ae15},
		36: {0x4473606dfa4e8140, 0x75cd368df8a8ac3c, 0x540a30e03c10bbaa, 0x699303082a6e5d5f},
	}
	for _, arity := range PoseidonArities {
		c := poseidonForTest(t, arity)
		var got fr.Element
		if err := c.Hash(&got, poseidonAscending(arity)); err != nil {
			t.Fatal(err)
		}
		if w := poseidonFrFromLimbs(t, want[arity]); !got.Equal(&w) {
			t.Errorf("arity %d: digest %x, want %x", arity, got.Bits(), w.Bits())
		}
	}
}

// TestPoseidonRustFilProofsVectors: rfp filecoin-hashers tests test_poseidon_hasher and
// test_hash_md (§10, §11.2c).
func TestPoseidonRustFilProofsVectors(t *testing.T) {
	var zero, one fr.Element
	one.SetOne()
	n10 := HashPoseidon2(&one, &zero)
	if want := poseidonFrFromLEHex(t, "5e0b807960ff39b3af9430dcb30759ec264fa274cc03c093c36b78beff942f04"); !n10.Equal(&want) {
		t.Errorf("node(1,0) = %x", n10.Bytes())
	}
	n01 := HashPoseidon2(&zero, &one)
	root := HashPoseidon2(&n10, &n01)
	if want := poseidonFrFromLEHex(t, "71e691e2e38bbbefd25a2bcbb872cc77ae746bae8563eb30ebd96ab2b7ebff1e"); !root.Equal(&want) {
		t.Errorf("root [1,0,0,1] = %x", root.Bytes())
	}

	ones := make([]fr.Element, 71)
	for i := range ones {
		ones[i].SetOne()
	}
	var md fr.Element
	if err := HashMD(&md, ones); err != nil {
		t.Fatal(err)
	}
	want := poseidonFrFromLimbs(t, [4]uint64{0x351c54133b332c90, 0xc26f6d625f4e8195, 0x5fd9623643ed9622, 0x59f42220e09ff6f7})
	if !md.Equal(&want) {
		t.Errorf("hash_md(71 ones) = %x", md.Bits())
	}
}

// TestHashMDShortChunk: a short last chunk is zero-padded, as neptune's reset() leaves it.
func TestHashMDShortChunk(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	in := poseidonRandom(rng, 1+35+10)
	var got fr.Element
	if err := HashMD(&got, in); err != nil {
		t.Fatal(err)
	}
	c := poseidonForTest(t, 36)
	var acc fr.Element
	pre := make([]fr.Element, 36)
	pre[0] = in[0]
	copy(pre[1:], in[1:36])
	if err := c.Hash(&acc, pre); err != nil {
		t.Fatal(err)
	}
	clear(pre)
	pre[0] = acc
	copy(pre[1:], in[36:])
	if err := c.Hash(&acc, pre); err != nil {
		t.Fatal(err)
	}
	if !got.Equal(&acc) {
		t.Error("HashMD with a short chunk differs from explicit zero padding")
	}
}

func TestPoseidonBadInput(t *testing.T) {
	for _, arity := range []int{-1, 0, 1, 3, 37, 64} {
		if _, err := PoseidonFor(arity); !errors.Is(err, ErrPoseidonArity) {
			t.Errorf("PoseidonFor(%d) err = %v", arity, err)
		}
	}
	c := poseidonForTest(t, 8)
	var d fr.Element
	for _, n := range []int{0, 7, 9, 40} {
		if err := c.Hash(&d, make([]fr.Element, n)); !errors.Is(err, ErrPoseidonPreimage) {
			t.Errorf("Hash with %d elements: err = %v", n, err)
		}
	}
	for _, n := range []int{0, 1} {
		if err := HashMD(&d, make([]fr.Element, n)); !errors.Is(err, ErrPoseidonPreimage) {
			t.Errorf("HashMD with %d elements: err = %v", n, err)
		}
	}
	if _, err := PoseidonCustomTag(0); err == nil {
		t.Error("custom tag 0 accepted")
	}
	if tag, err := PoseidonCustomTag(1); err != nil || tag.Uint64() != 1<<40 {
		t.Errorf("custom tag 1 = %v, %v", tag.String(), err)
	}
}

// TestPoseidonWrappers: the fixed-arity wrappers equal Hash.
func TestPoseidonWrappers(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	check := func(arity int, got fr.Element, in []fr.Element) {
		var want fr.Element
		if err := poseidonForTest(t, arity).Hash(&want, in); err != nil {
			t.Fatal(err)
		}
		if !got.Equal(&want) {
			t.Errorf("arity %d wrapper differs from Hash", arity)
		}
	}
	in := poseidonRandom(rng, 11)
	check(2, HashPoseidon2(&in[0], &in[1]), in[:2])
	check(4, HashPoseidon4((*[4]fr.Element)(in[:4])), in[:4])
	check(8, HashPoseidon8((*[8]fr.Element)(in[:8])), in[:8])
	check(11, HashPoseidon11((*[11]fr.Element)(in[:11])), in[:11])
}
