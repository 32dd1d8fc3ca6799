package gadget

import (
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/snarkpipe/snarkpipe/prover/r1cs"
)

// Tree-D node: 2·256 rows of to_bits_le, 44,866 rows of SHA-256 (2 of the 512 message
// bits are constant), 1 pack row: 45,379 (spec §4.5). Aux: 2·255 + 44,820 + 1.
func TestSha256NodeCounts(t *testing.T) {
	cnt := r1cs.NewCounter()
	l, r := AllocNum(cnt, frU64(1)), AllocNum(cnt, frU64(2))
	if _, err := Sha256NodeCircuit(cnt, l, r); err != nil {
		t.Fatal(err)
	}
	s := cnt.Sizes()
	if s.NumConstraints != 45379 {
		t.Errorf("node rows %d, want 45379", s.NumConstraints)
	}
	if got := s.NumConstraints - 512 - 1; got != 44866 {
		t.Errorf("SHA-256 part %d rows, want 44866", got)
	}
	if got := s.NumAux - 2; got != 510+44820+1 {
		t.Errorf("node aux %d, want %d", got, 510+44820+1)
	}
}

// The circuit node equals the native Sha254 node hash and the system holds, for random
// field elements and the zero node (the §10 level-1 vector).
func TestSha256NodeMatchesNative(t *testing.T) {
	cases := [][2]fr.Element{{{}, {}}, {randFr(), randFr()}}
	if !testing.Short() {
		cases = append(cases, [2]fr.Element{randFr(), randFr()}, [2]fr.Element{randFr(), {}})
	}
	for _, c := range cases {
		chk := r1cs.NewChecker()
		got, err := Sha256NodeCircuit(chk, AllocNum(chk, c[0]), AllocNum(chk, c[1]))
		if err != nil {
			t.Fatal(err)
		}
		if err := chk.Err(); err != nil {
			t.Fatal(err)
		}
		if want := NodeHashFr(&c[0], &c[1]); !got.Value.Equal(&want) {
			t.Fatalf("circuit node %s, native %s", got.Value.String(), want.String())
		}
	}
}

func TestSha256NodeDigest(t *testing.T) {
	shape := mustSynth(t, func(cs r1cs.ConstraintSystem) {
		if _, err := Sha256NodeCircuit(cs, AllocNum(cs, randFr()), AllocNum(cs, randFr())); err != nil {
			t.Fatal(err)
		}
	})
	assertDigest(t, shape, "bbdb25d590435098c8d40903a792297fcea6f793deb07bb95624c2c76400a835")
}

func TestSha256LeafBitsCircuit(t *testing.T) {
	x, y := randFr(), randFr()
	chk := r1cs.NewChecker()
	a, b := AllocNum(chk, x), AllocNum(chk, y)
	got, err := Sha256LeafBitsCircuit(chk, a.ToBitsLE(chk), b.ToBitsLE(chk))
	if err != nil {
		t.Fatal(err)
	}
	if err := chk.Err(); err != nil {
		t.Fatal(err)
	}
	if want := NodeHashFr(&x, &y); !got.Value.Equal(&want) {
		t.Fatalf("leaf-bits hash %s, native %s", got.Value.String(), want.String())
	}
}

// The node's SHA-256 splits per compression as 25,832 (message block with two constant
// bits: Fr bit 255 of each leaf) + 19,034 (constant padding block, variable state).
func TestSha256NodePerCompression(t *testing.T) {
	cnt := r1cs.NewCounter()
	l, r := AllocNum(cnt, randFr()), AllocNum(cnt, randFr())
	msg := append(ReverseBitNumbering(l.ToBitsLE(cnt)), ReverseBitNumbering(r.ToBitsLE(cnt))...)
	constants := 0
	for _, b := range msg {
		if b.IsConstant() {
			constants++
		}
	}
	if constants != 2 {
		t.Fatalf("%d constant message bits, want 2", constants)
	}
	padding := make([]Boolean, 512)
	for i := range padding {
		padding[i] = Constant(false)
	}
	padding[0] = Constant(true)
	padding[512-10] = Constant(true) // length 512 = 1 << 9, big-endian in the last 64 bits
	start := cnt.Sizes().NumConstraints
	state := Sha256Compression(cnt, msg, Sha256IV())
	first := cnt.Sizes().NumConstraints
	Sha256Compression(cnt, padding, state)
	second := cnt.Sizes().NumConstraints
	if first-start != 25832 || second-first != 19034 {
		t.Errorf("compressions %d + %d rows, want 25832 + 19034", first-start, second-first)
	}
}
