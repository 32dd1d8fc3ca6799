package gadget

import (
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// FuzzPoseidonMatchesReference: for any arity and preimage the fuzzer picks, the
// optimized hash equals the textbook permutation, and the circuit trace ends in the
// same digest. Bytes become field elements 32 at a time (reduced mod p).
func FuzzPoseidonMatchesReference(f *testing.F) {
	f.Add(uint8(0), []byte{})
	f.Add(uint8(2), []byte{1, 2, 3})
	f.Add(uint8(3), make([]byte, 11*32))
	f.Fuzz(func(t *testing.T, which uint8, data []byte) {
		arity := PoseidonArities[int(which)%len(PoseidonArities)]
		c := poseidonForTest(t, arity)
		in := make([]fr.Element, arity)
		for i := range in {
			if len(data) == 0 {
				break
			}
			n := min(len(data), fr.Bytes)
			in[i].SetBytes(data[:n])
			data = data[n:]
		}
		var got fr.Element
		if err := c.Hash(&got, in); err != nil {
			t.Fatal(err)
		}
		if want := referencePoseidon(c, in); !got.Equal(&want) {
			t.Fatalf("arity %d: optimized != reference", arity)
		}
		aux := make([]fr.Element, c.AuxCount())
		if d, err := c.WitnessAux(aux, in); err != nil || !d.Equal(&got) {
			t.Fatalf("arity %d: trace digest differs (%v)", arity, err)
		}
	})
}
