package groth16

import (
	"bytes"
	"math/big"
	"math/rand/v2"
	"testing"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fp"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// Test points are start + i·step for random start and step: distinct, in the subgroup,
// and cheap (one mixed addition per point instead of a scalar multiplication).

func tpScalar(rng *rand.Rand) *big.Int {
	var s fr.Element
	s.SetUint64(rng.Uint64())
	s.Mul(&s, &s).Add(&s, new(fr.Element).SetUint64(rng.Uint64()|1))
	return s.BigInt(new(big.Int))
}

func tpG1s(rng *rand.Rand, n int) []bls.G1Affine {
	var start, step bls.G1Affine
	start.ScalarMultiplicationBase(tpScalar(rng))
	step.ScalarMultiplicationBase(tpScalar(rng))
	jac := make([]bls.G1Jac, n)
	var acc bls.G1Jac
	acc.FromAffine(&start)
	for i := range jac {
		jac[i] = acc
		acc.AddMixed(&step)
	}
	return bls.BatchJacobianToAffineG1(jac)
}

func tpG2s(rng *rand.Rand, n int) []bls.G2Affine {
	var start, step bls.G2Affine
	start.ScalarMultiplicationBase(tpScalar(rng))
	step.ScalarMultiplicationBase(tpScalar(rng))
	out := make([]bls.G2Affine, n)
	var acc bls.G2Jac
	acc.FromAffine(&start)
	for i := range out {
		out[i].FromJacobian(&acc)
		acc.AddMixed(&step)
	}
	return out
}

func tpG1(rng *rand.Rand) bls.G1Affine { return tpG1s(rng, 1)[0] }
func tpG2(rng *rand.Rand) bls.G2Affine { return tpG2s(rng, 1)[0] }

// tpShape is a small circuit shape: 3 inputs, 5 aux, domain 16, 4 aux in A, B uses
// 1 input and 2 aux.
var tpShape = ShapeCounts{Inputs: 3, Aux: 5, DomainSize: 16, AAux: 4, BInput: 1, BAux: 2}

func tpParams(rng *rand.Rand, s ShapeCounts, dev bool) *Params {
	return &Params{
		VK: VerifyingKey{
			AlphaG1: tpG1(rng), BetaG1: tpG1(rng), BetaG2: tpG2(rng), GammaG2: tpG2(rng),
			DeltaG1: tpG1(rng), DeltaG2: tpG2(rng), IC: tpG1s(rng, s.Inputs),
		},
		H:   tpG1s(rng, s.DomainSize-1),
		L:   tpG1s(rng, s.Aux),
		A:   tpG1s(rng, s.Inputs+s.AAux),
		BG1: tpG1s(rng, s.BInput+s.BAux),
		BG2: tpG2s(rng, s.BInput+s.BAux),
		Dev: dev,
	}
}

func tpEncode(t testing.TB, p *Params) []byte {
	t.Helper()
	var buf bytes.Buffer
	n, err := p.WriteTo(&buf)
	if err != nil {
		t.Fatalf("WriteTo: %v", err)
	}
	if n != int64(buf.Len()) {
		t.Fatalf("WriteTo returned %d, wrote %d bytes", n, buf.Len())
	}
	return buf.Bytes()
}

// tpOffsets returns the byte offset of point index of the named vector in an encoded
// params file with shape s.
func tpOffset(s ShapeCounts, vector string, index int) int {
	off := 0
	fixed := []struct {
		name string
		size int
	}{{"alpha_g1", 96}, {"beta_g1", 96}, {"beta_g2", 192}, {"gamma_g2", 192}, {"delta_g1", 96}, {"delta_g2", 192}}
	for _, f := range fixed {
		if f.name == vector {
			return off
		}
		off += f.size
	}
	vecs := []struct {
		name  string
		count int
		size  int
	}{
		{"ic", s.Inputs, 96}, {"h", s.DomainSize - 1, 96}, {"l", s.Aux, 96}, {"a", s.Inputs + s.AAux, 96},
		{"b_g1", s.BInput + s.BAux, 96}, {"b_g2", s.BInput + s.BAux, 192},
	}
	for _, v := range vecs {
		off += 4
		if v.name == vector {
			return off + index*v.size
		}
		off += v.count * v.size
	}
	panic("unknown vector " + vector)
}

// tpModulusBytes is p, big-endian: the smallest non-canonical coordinate.
func tpModulusBytes() [48]byte {
	var b [48]byte
	fp.Modulus().FillBytes(b[:])
	return b
}

// tpG1NotInSubgroup returns a point on y² = x³ + 4 outside the order-r subgroup.
func tpG1NotInSubgroup(t testing.TB) bls.G1Affine {
	t.Helper()
	for x := uint64(1); x < 1000; x++ {
		var p bls.G1Affine
		p.X.SetUint64(x)
		var rhs fp.Element
		rhs.Square(&p.X).Mul(&rhs, &p.X).Add(&rhs, &g1CurveB)
		if p.Y.Sqrt(&rhs) == nil {
			continue
		}
		if p.IsOnCurve() && !p.IsInSubGroup() {
			return p
		}
	}
	t.Fatal("no G1 point outside the subgroup found")
	return bls.G1Affine{}
}

// tpG2NotInSubgroup returns a point on the twist outside the order-r subgroup.
func tpG2NotInSubgroup(t testing.TB) bls.G2Affine {
	t.Helper()
	for x := uint64(1); x < 1000; x++ {
		var p bls.G2Affine
		p.X.A0.SetUint64(x)
		p.X.A1.SetUint64(1)
		var rhs bls.E2
		rhs.Square(&p.X).Mul(&rhs, &p.X).Add(&rhs, &g2CurveB)
		if rhs.Legendre() != 1 {
			continue
		}
		p.Y.Sqrt(&rhs)
		if p.IsOnCurve() && !p.IsInSubGroup() {
			return p
		}
	}
	t.Fatal("no G2 point outside the subgroup found")
	return bls.G2Affine{}
}
