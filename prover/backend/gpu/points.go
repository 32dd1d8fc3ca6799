package gpu

import (
	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fp"
)

// g1XYZZ is the library's G1 result layout: x = X/ZZ, y = Y/ZZZ, ZZ = 0 at infinity.
type g1XYZZ struct{ X, Y, ZZ, ZZZ fp.Element }

// g2XYZZ is the G2 counterpart over Fp2.
type g2XYZZ struct{ X, Y, ZZ, ZZZ bls.E2 }

// jac converts to Jacobian coordinates with Z = ZZ·ZZZ, so that X' = X·ZZ·ZZZ² and
// Y' = Y·ZZ³·ZZZ² (no inversion).
func (p *g1XYZZ) jac() bls.G1Jac {
	var r bls.G1Jac
	if p.ZZ.IsZero() {
		r.X.SetOne()
		r.Y.SetOne()
		return r
	}
	var zzz2, zz2 fp.Element
	zzz2.Square(&p.ZZZ)
	zz2.Square(&p.ZZ)
	r.Z.Mul(&p.ZZ, &p.ZZZ)
	r.X.Mul(&p.X, &p.ZZ).Mul(&r.X, &zzz2)
	r.Y.Mul(&p.Y, &zz2).Mul(&r.Y, &p.ZZ).Mul(&r.Y, &zzz2)
	return r
}

func (p *g2XYZZ) jac() bls.G2Jac {
	var r bls.G2Jac
	if p.ZZ.IsZero() {
		r.X.SetOne()
		r.Y.SetOne()
		return r
	}
	var zzz2, zz2 bls.E2
	zzz2.Square(&p.ZZZ)
	zz2.Square(&p.ZZ)
	r.Z.Mul(&p.ZZ, &p.ZZZ)
	r.X.Mul(&p.X, &p.ZZ).Mul(&r.X, &zzz2)
	r.Y.Mul(&p.Y, &zz2).Mul(&r.Y, &p.ZZ).Mul(&r.Y, &zzz2)
	return r
}

// combineG1 returns Σ_w 2^(w·c)·W_w (Horner from the top window).
func combineG1(wins []g1XYZZ, c uint32) bls.G1Jac {
	var acc bls.G1Jac
	acc.X.SetOne()
	acc.Y.SetOne()
	for w := len(wins) - 1; w >= 0; w-- {
		if w != len(wins)-1 {
			for k := uint32(0); k < c; k++ {
				acc.DoubleAssign()
			}
		}
		j := wins[w].jac()
		acc.AddAssign(&j)
	}
	return acc
}

func combineG2(wins []g2XYZZ, c uint32) bls.G2Jac {
	var acc bls.G2Jac
	acc.X.SetOne()
	acc.Y.SetOne()
	for w := len(wins) - 1; w >= 0; w-- {
		if w != len(wins)-1 {
			for k := uint32(0); k < c; k++ {
				acc.DoubleAssign()
			}
		}
		j := wins[w].jac()
		acc.AddAssign(&j)
	}
	return acc
}
