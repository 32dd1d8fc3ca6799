package groth16

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"math/big"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fp"
)

func tpProofs(rng *rand.Rand, n int) []Proof {
	a, c := tpG1s(rng, n), tpG1s(rng, n)
	b := tpG2s(rng, n)
	out := make([]Proof, n)
	for i := range out {
		out[i] = Proof{A: a[i], B: b[i], C: c[i]}
	}
	return out
}

// fpBig returns the canonical integer of an Fp element.
func fpBig(e fp.Element) *big.Int { return e.BigInt(new(big.Int)) }

// largest is the zcash "sort" rule written out by hand: y > (p−1)/2.
func largest(y fp.Element) bool {
	half := new(big.Int).Rsh(fp.Modulus(), 1)
	return fpBig(y).Cmp(half) > 0
}

func TestProofEncodingByHand(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	for _, p := range tpProofs(rng, 16) {
		for _, neg := range []bool{false, true} {
			if neg {
				p.A.Neg(&p.A)
				p.B.Neg(&p.B)
			}
			enc := p.Bytes()
			checkG1 := func(name string, b []byte, q bls.G1Affine) {
				if b[0]&0xc0 != 0x80 {
					t.Fatalf("%s: flags %08b, want compressed finite", name, b[0])
				}
				if got, want := b[0]&0x20 != 0, largest(q.Y); got != want {
					t.Fatalf("%s: sort flag %v, want %v", name, got, want)
				}
				x := bytes.Clone(b)
				x[0] &^= 0xe0
				if new(big.Int).SetBytes(x).Cmp(fpBig(q.X)) != 0 {
					t.Fatalf("%s: X bytes are not canonical big-endian X", name)
				}
			}
			checkG1("a", enc[:48], p.A)
			checkG1("c", enc[144:], p.C)

			b := enc[48:144]
			if b[0]&0xc0 != 0x80 {
				t.Fatalf("b: flags %08b", b[0])
			}
			c1 := bytes.Clone(b[:48])
			c1[0] &^= 0xe0
			if new(big.Int).SetBytes(c1).Cmp(fpBig(p.B.X.A1)) != 0 || new(big.Int).SetBytes(b[48:]).Cmp(fpBig(p.B.X.A0)) != 0 {
				t.Fatal("b: X is not c1 ‖ c0")
			}
			wantSort := largest(p.B.Y.A1)
			if p.B.Y.A1.IsZero() {
				wantSort = largest(p.B.Y.A0)
			}
			if got := b[0]&0x20 != 0; got != wantSort {
				t.Fatalf("b: sort flag %v, want %v", got, wantSort)
			}

			// gnark-crypto's own codec agrees, and so does ours.
			var ga, gc bls.G1Affine
			var gb bls.G2Affine
			if _, err := ga.SetBytes(enc[:48]); err != nil || !ga.Equal(&p.A) {
				t.Fatalf("gnark SetBytes(a): %v", err)
			}
			if _, err := gb.SetBytes(enc[48:144]); err != nil || !gb.Equal(&p.B) {
				t.Fatalf("gnark SetBytes(b): %v", err)
			}
			if _, err := gc.SetBytes(enc[144:]); err != nil || !gc.Equal(&p.C) {
				t.Fatalf("gnark SetBytes(c): %v", err)
			}
			q, err := DecodeProof(enc[:])
			if err != nil || !q.A.Equal(&p.A) || !q.B.Equal(&p.B) || !q.C.Equal(&p.C) {
				t.Fatalf("DecodeProof: %v", err)
			}
			var u Proof
			m, _ := p.MarshalBinary()
			if err := u.UnmarshalBinary(m); err != nil || u.Bytes() != enc {
				t.Fatalf("MarshalBinary/UnmarshalBinary: %v", err)
			}
		}
	}
}

// The standard generators encode to their well-known compressed forms.
func TestGeneratorEncodings(t *testing.T) {
	_, _, g1, g2 := bls.Generators()
	p := Proof{A: g1, B: g2, C: g1}
	enc := p.Bytes()
	if got := enc[:4]; !bytes.Equal(got, []byte{0x97, 0xf1, 0xd3, 0xa7}) {
		t.Errorf("G1 generator starts %x, want 97f1d3a7", got)
	}
	if got := enc[48:52]; !bytes.Equal(got, []byte{0x93, 0xe0, 0x2b, 0x60}) {
		t.Errorf("G2 generator starts %x, want 93e02b60", got)
	}
}

func TestDecodeProofRejects(t *testing.T) {
	rng := rand.New(rand.NewPCG(33, 34))
	good := tpProofs(rng, 1)[0].Bytes()
	modulus := tpModulusBytes()
	notSub1 := tpG1NotInSubgroup(t)
	notSub2 := tpG2NotInSubgroup(t)
	ns1, ns2 := notSub1.Bytes(), notSub2.Bytes()
	offCurveX := tpX(t)

	type seg struct {
		name       string
		start, end int
	}
	segs := []seg{{"proof.a", 0, 48}, {"proof.b", 48, 144}, {"proof.c", 144, 192}}
	for _, s := range segs {
		cases := []struct {
			name   string
			mutate func(b []byte)
			want   error
		}{
			{"identity", func(b []byte) { clear(b); b[0] = 0xc0 }, ErrIdentity},
			{"identity with sort flag", func(b []byte) { clear(b); b[0] = 0xe0 }, ErrInvalidEncoding},
			{"infinity with data", func(b []byte) { b[0] |= 0x40 }, ErrInvalidEncoding},
			{"uncompressed flag", func(b []byte) { b[0] &^= 0x80 }, ErrInvalidEncoding},
			{"x = p", func(b []byte) { copy(b, modulus[:]); b[0] |= 0x80 }, ErrNonCanonical},
			{"x not on curve", func(b []byte) {
				if len(b) == 48 {
					copy(b, offCurveX[:])
				} else {
					clear(b)
					b[95] = 3
					for {
						var x bls.E2
						x.A0.SetBytes(b[48:])
						var rhs bls.E2
						rhs.Square(&x).Mul(&rhs, &x).Add(&rhs, &g2CurveB)
						if rhs.Legendre() < 0 {
							break
						}
						b[95]++
					}
				}
				b[0] |= 0x80
			}, ErrNotOnCurve},
			{"not in subgroup", func(b []byte) {
				if len(b) == 48 {
					copy(b, ns1[:])
				} else {
					copy(b, ns2[:])
				}
			}, ErrNotInSubgroup},
		}
		for _, c := range cases {
			b := good
			c.mutate(b[s.start:s.end])
			_, err := DecodeProof(b[:])
			var fe *FormatError
			if !errors.As(err, &fe) || fe.Vector != s.name || !errors.Is(err, c.want) {
				t.Errorf("%s/%s: %v, want %s: %v", s.name, c.name, err, s.name, c.want)
			}
		}
	}
	for _, n := range []int{0, 1, 191, 193, 384} {
		if _, err := DecodeProof(make([]byte, n)); n != 192 && !errors.Is(err, ErrProofLength) {
			t.Errorf("DecodeProof(%d bytes): %v", n, err)
		}
	}
	for _, n := range []int{0, 191, 193, 385} {
		if _, err := DecodeProofs(make([]byte, n)); !errors.Is(err, ErrProofLength) {
			t.Errorf("DecodeProofs(%d bytes): %v", n, err)
		}
	}
}

// tpX returns a compressed G1 X for which x³ + 4 has no square root.
func tpX(t *testing.T) [48]byte {
	for x := uint64(1); ; x++ {
		var e, rhs fp.Element
		e.SetUint64(x)
		rhs.Square(&e).Mul(&rhs, &e).Add(&rhs, &g1CurveB)
		if rhs.Legendre() < 0 {
			return e.Bytes()
		}
	}
}

func TestDecodeProofsConcatenation(t *testing.T) {
	rng := rand.New(rand.NewPCG(35, 36))
	proofs := tpProofs(rng, 5)
	var cat []byte
	for _, p := range proofs {
		b := p.Bytes()
		cat = append(cat, b[:]...)
	}
	got, err := DecodeProofs(cat)
	if err != nil || len(got) != 5 {
		t.Fatalf("DecodeProofs: %d proofs, %v", len(got), err)
	}
	for i := range got {
		if got[i].Bytes() != proofs[i].Bytes() {
			t.Fatalf("proof %d differs", i)
		}
	}
	cat[3*192+150] ^= 0xff
	cat[4*192] = 0
	_, err = DecodeProofs(cat)
	var fe *FormatError
	if !errors.As(err, &fe) || fe.Index != 3 || fe.Vector != "proof.c" || fe.Offset != 3*192+144 {
		t.Fatalf("corrupt proof 3: %v", err)
	}
}

// Real proofs from rust-fil-proofs' seal regression records decode (with subgroup checks)
// and re-encode byte for byte.
func TestDecodeUpstreamProofs(t *testing.T) {
	dir := filepath.Join("..", "..", "..", "shared", "testdata", "upstream")
	decoded := 0
	for _, name := range []string{"seal_regression_records-v16.json", "seal_regression_records-v18.json"} {
		f, err := os.Open(filepath.Join(dir, name))
		if err != nil {
			t.Skipf("upstream fixtures absent (%v)", err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<22)
		for sc.Scan() {
			var rec struct {
				PorepConfig struct {
					Partitions  int      `json:"partitions"`
					APIFeatures []string `json:"api_features"`
				} `json:"porep_config"`
				Proof []int `json:"proof"`
			}
			if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if len(rec.PorepConfig.APIFeatures) > 0 && rec.PorepConfig.APIFeatures[0] == "NonInteractivePoRep" {
				continue // SnarkPack aggregate, not plain proofs
			}
			raw := make([]byte, len(rec.Proof))
			for i, v := range rec.Proof {
				raw[i] = byte(v)
			}
			proofs, err := DecodeProofs(raw)
			if err != nil {
				t.Fatalf("%s: real proof refused: %v", name, err)
			}
			if len(proofs) != rec.PorepConfig.Partitions {
				t.Fatalf("%s: %d proofs, want %d partitions", name, len(proofs), rec.PorepConfig.Partitions)
			}
			for i, p := range proofs {
				if b := p.Bytes(); !bytes.Equal(b[:], raw[i*192:(i+1)*192]) {
					t.Fatalf("%s: proof %d re-encodes differently", name, i)
				}
			}
			decoded += len(proofs)
		}
		f.Close()
	}
	// 448 v16 records (6 of them 10 partitions) and 89 plain v18 records (1 of 10).
	if want := 442 + 60 + 88 + 10; decoded != want {
		t.Fatalf("decoded %d upstream proofs, want %d", decoded, want)
	}
}
