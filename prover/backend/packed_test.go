package backend

import (
	"math/rand/v2"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// mixedAux returns n values: about 45 % zeros, 30 % ones, the rest random.
func mixedAux(seed uint64, n int) []fr.Element {
	rng := rand.New(rand.NewPCG(seed, 1))
	out := make([]fr.Element, n)
	for i := range out {
		switch u := rng.IntN(100); {
		case u < 45:
		case u < 75:
			out[i].SetOne()
		default:
			out[i].SetUint64(rng.Uint64())
			out[i].Square(&out[i])
		}
	}
	return out
}

// TestPackAuxRoundTrip: packing and unpacking gives the vector back for sizes around the
// word boundary, and the counts match the zero / one / other split.
func TestPackAuxRoundTrip(t *testing.T) {
	for _, n := range []int{0, 1, 63, 64, 65, 1000} {
		aux := mixedAux(uint64(n), n)
		p := PackAux(aux)
		if err := p.Validate(); err != nil {
			t.Fatalf("n=%d: %v", n, err)
		}
		got := p.Unpack()
		if len(got) != n {
			t.Fatalf("n=%d: unpacked %d values", n, len(got))
		}
		others := 0
		one := fr.One()
		for i := range aux {
			if !got[i].Equal(&aux[i]) {
				t.Fatalf("n=%d: value %d differs after the round trip", n, i)
			}
			if !aux[i].IsZero() && !aux[i].Equal(&one) {
				others++
			}
		}
		if len(p.Values) != others {
			t.Fatalf("n=%d: %d field values, want %d", n, len(p.Values), others)
		}
	}
}

// TestPackedAuxValidate: inconsistent packings are refused.
func TestPackedAuxValidate(t *testing.T) {
	good := func() PackedAux { return PackAux(mixedAux(7, 100)) }
	cases := map[string]func(p *PackedAux){
		"short field bitmap": func(p *PackedAux) { p.Field = p.Field[:1] },
		"short ones bitmap":  func(p *PackedAux) { p.Ones = p.Ones[:1] },
		"bit past N":         func(p *PackedAux) { p.Ones[1] |= 1 << 40 },
		"missing value":      func(p *PackedAux) { p.Values = p.Values[1:] },
		"negative N":         func(p *PackedAux) { p.N = -1 },
	}
	for name, corrupt := range cases {
		p := good()
		corrupt(&p)
		if err := p.Validate(); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}
