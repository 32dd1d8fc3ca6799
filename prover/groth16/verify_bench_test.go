package groth16

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"testing"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// randomIC returns n+1 distinct G1 points and n public inputs (random field elements, or
// small ones like the challenge indices of PoSt circuits).
func randomIC(n int, small bool) ([]bls.G1Affine, []fr.Element) {
	rng := rand.New(rand.NewPCG(uint64(n), 9))
	_, _, g1, _ := bls.Generators()
	var acc bls.G1Jac
	acc.FromAffine(&g1)
	var step bls.G1Jac
	step.ScalarMultiplication(&acc, new(fr.Element).SetUint64(rng.Uint64()).BigInt(new(big.Int)))
	jac := make([]bls.G1Jac, n+1)
	for i := range jac {
		acc.AddAssign(&step)
		jac[i] = acc
	}
	ic := bls.BatchJacobianToAffineG1(jac)
	public := make([]fr.Element, n)
	for i := range public {
		if small {
			public[i].SetUint64(rng.Uint64N(1 << 20))
		} else {
			public[i].SetRandom()
		}
	}
	return ic, public
}

// TestInputCombinationMatchesNaive: Σ wᵢ·ICᵢ by the multi-exponentiation equals the sum of
// single scalar multiplications, for random and small inputs, with and without scale0.
func TestInputCombinationMatchesNaive(t *testing.T) {
	for _, n := range []int{0, 1, 2, 40, 328, 3000} {
		for _, small := range []bool{false, true} {
			ic, public := randomIC(n, small)
			vk := &VerifyingKey{IC: ic}
			var s0 fr.Element
			s0.SetUint64(12345)
			for _, scale0 := range []*fr.Element{nil, &s0} {
				got, err := vk.inputCombination(public, scale0)
				if err != nil {
					t.Fatal(err)
				}
				var acc, term bls.G1Jac
				w0 := fr.One()
				if scale0 != nil {
					w0 = *scale0
				}
				acc.FromAffine(&ic[0])
				acc.ScalarMultiplication(&acc, w0.BigInt(new(big.Int)))
				for i := range public {
					term.FromAffine(&ic[i+1])
					term.ScalarMultiplication(&term, public[i].BigInt(new(big.Int)))
					acc.AddAssign(&term)
				}
				var want bls.G1Affine
				want.FromJacobian(&acc)
				if !got.Equal(&want) {
					t.Fatalf("n=%d small=%v scale0=%v: combination differs", n, small, scale0 != nil)
				}
			}
		}
	}
}

// BenchmarkInputCombination: the verifier's IC sum at the public-input counts of Filecoin
// circuits (PoRep 32 GiB 327; a 32 GiB Window partition ~25,800: 2,349 sectors × 11).
func BenchmarkInputCombination(b *testing.B) {
	for _, n := range []int{327, 25839} {
		ic, public := randomIC(n, true)
		vk := &VerifyingKey{IC: ic}
		b.Run(fmt.Sprintf("inputs=%d", n), func(b *testing.B) {
			for b.Loop() {
				if _, err := vk.inputCombination(public, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
