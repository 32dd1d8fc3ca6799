package groth16

import (
	"crypto/rand"
	"errors"
	"fmt"
	"math/big"

	"github.com/consensys/gnark-crypto/ecc"
	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// ErrInvalidProof is returned when a proof does not satisfy the verification equation.
var ErrInvalidProof = errors.New("groth16: invalid proof")

// Verify checks one proof against public inputs x₁..x_ℓ (ONE excluded), as bellperson's
// verify_proof: e(A,B)·e(acc,−γ)·e(C,−δ) = e(α,β) with acc = IC₀ + Σ xᵢ·ICᵢ.
func (vk *VerifyingKey) Verify(p *Proof, public []fr.Element) error {
	acc, err := vk.inputCombination(public, nil)
	if err != nil {
		return err
	}
	var negAlpha bls.G1Affine
	negAlpha.Neg(&vk.AlphaG1)
	var negGamma, negDelta bls.G2Affine
	negGamma.Neg(&vk.GammaG2)
	negDelta.Neg(&vk.DeltaG2)
	ok, err := bls.PairingCheck(
		[]bls.G1Affine{p.A, acc, p.C, negAlpha},
		[]bls.G2Affine{p.B, negGamma, negDelta, vk.BetaG2})
	if err != nil {
		return fmt.Errorf("groth16: pairing: %w", err)
	}
	if !ok {
		return ErrInvalidProof
	}
	return nil
}

// inputCombination returns Σ wᵢ·ICᵢ with w₀ = scale0 (1 when nil) and wᵢ = public[i−1].
func (vk *VerifyingKey) inputCombination(public []fr.Element, scale0 *fr.Element) (bls.G1Affine, error) {
	var out bls.G1Affine
	if len(public)+1 != len(vk.IC) {
		return out, fmt.Errorf("groth16: %d public inputs, verifying key expects %d", len(public), len(vk.IC)-1)
	}
	w := make([]fr.Element, len(vk.IC))
	w[0].SetOne()
	if scale0 != nil {
		w[0] = *scale0
	}
	copy(w[1:], public)
	// One multi-exponentiation: a 32 GiB Window PoSt partition has 25,839 public inputs,
	// which one scalar multiplication each made a third of a second of every verification.
	if _, err := out.MultiExp(vk.IC, w, ecc.MultiExpConfig{}); err != nil {
		return out, fmt.Errorf("groth16: input combination: %w", err)
	}
	return out, nil
}

// VerifyBatch checks several proofs of one circuit at once with random 128-bit weights zⱼ,
// as bellperson's verify_proofs_batch: ∏ e(zⱼ·Aⱼ, Bⱼ) · e(−Σ zⱼ·Cⱼ, δ) ·
// e(−Σᵢ Sᵢ·ICᵢ, γ) · e(−(Σ zⱼ)·α, β) = 1 with Sᵢ = Σⱼ zⱼ·xⱼ,ᵢ. A batch failure says only
// that some proof is invalid; callers that need to know which verify one by one.
func (vk *VerifyingKey) VerifyBatch(proofs []Proof, public [][]fr.Element) error {
	if len(proofs) != len(public) {
		return fmt.Errorf("groth16: %d proofs but %d public-input vectors", len(proofs), len(public))
	}
	if len(proofs) == 0 {
		return nil
	}
	n := len(vk.IC) - 1
	var zSum fr.Element
	sums := make([]fr.Element, n)
	var cAcc bls.G1Jac
	g1s := make([]bls.G1Affine, 0, len(proofs)+3)
	g2s := make([]bls.G2Affine, 0, len(proofs)+3)
	for j := range proofs {
		if len(public[j]) != n {
			return fmt.Errorf("groth16: proof %d has %d public inputs, verifying key expects %d", j, len(public[j]), n)
		}
		z, err := randomWeight()
		if err != nil {
			return err
		}
		zSum.Add(&zSum, &z)
		zb := z.BigInt(new(big.Int))
		for i := range sums {
			var t fr.Element
			t.Mul(&z, &public[j][i])
			sums[i].Add(&sums[i], &t)
		}
		var za bls.G1Affine
		za.ScalarMultiplication(&proofs[j].A, zb)
		g1s = append(g1s, za)
		g2s = append(g2s, proofs[j].B)
		var zc bls.G1Jac
		zc.FromAffine(&proofs[j].C)
		zc.ScalarMultiplication(&zc, zb)
		cAcc.AddAssign(&zc)
	}
	acc, err := vk.inputCombination(sums, &zSum)
	if err != nil {
		return err
	}
	var negC, negAcc, negAlpha bls.G1Affine
	negC.FromJacobian(&cAcc)
	negC.Neg(&negC)
	negAcc.Neg(&acc)
	negAlpha.ScalarMultiplication(&vk.AlphaG1, zSum.BigInt(new(big.Int)))
	negAlpha.Neg(&negAlpha)
	g1s = append(g1s, negC, negAcc, negAlpha)
	g2s = append(g2s, vk.DeltaG2, vk.GammaG2, vk.BetaG2)
	ok, err := bls.PairingCheck(g1s, g2s)
	if err != nil {
		return fmt.Errorf("groth16: pairing: %w", err)
	}
	if !ok {
		return ErrInvalidProof
	}
	return nil
}

func randomWeight() (fr.Element, error) {
	var buf [16]byte
	var z fr.Element
	for z.IsZero() {
		if _, err := rand.Read(buf[:]); err != nil {
			return z, fmt.Errorf("groth16: batch weights: %w", err)
		}
		z.SetBigInt(new(big.Int).SetBytes(buf[:]))
	}
	return z, nil
}
