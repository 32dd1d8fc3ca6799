package groth16

import (
	"runtime"
	"sync"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// Fixed-base multiplication for the dev setup: k·G for many k. A comb table holds
// d·2^(w·j)·G for every window j and digit d, so each product is one mixed addition per
// window and no doubling (gnark-crypto's BatchScalarMultiplication doubles 255 times per
// point, several times slower for the millions of points a setup needs).

func combWindow(n int) int {
	if n > 1<<17 {
		return 14
	}
	return 8
}

// digit returns bits [w·j, w·j+w) of the canonical scalar.
func digit(limbs *[4]uint64, j, w int) int {
	lo := j * w
	word, shift := lo/64, lo%64
	v := limbs[word] >> shift
	if shift+w > 64 && word+1 < 4 {
		v |= limbs[word+1] << (64 - shift)
	}
	return int(v & (1<<w - 1))
}

func canonical(scalars []fr.Element) [][4]uint64 {
	out := make([][4]uint64, len(scalars))
	for i := range scalars {
		out[i] = scalars[i].Bits()
	}
	return out
}

// combPoint is the part of gnark-crypto's G1Jac / G2Jac API the comb needs.
type combPoint[A, J any] interface {
	*J
	FromAffine(*A) *J
	AddAssign(*J) *J
	AddMixed(*A) *J
	DoubleAssign() *J
}

// fixedBase returns k·base for every scalar k; identity is the group's Jacobian identity
// and toAffine its batch conversion.
func fixedBase[A, J any, PJ combPoint[A, J]](base *A, scalars []fr.Element, identity J, toAffine func([]J) []A, tick func(n int)) []A {
	w := combWindow(len(scalars))
	windows := (fr.Bits + w - 1) / w
	table := make([]A, windows<<w)
	var start J
	PJ(&start).FromAffine(base)
	jac := make([]J, 1<<w)
	for j := 0; j < windows; j++ {
		jac[1] = start
		for d := 2; d < 1<<w; d++ {
			jac[d] = jac[d-1]
			PJ(&jac[d]).AddAssign(&start)
		}
		copy(table[j<<w+1:(j+1)<<w], toAffine(jac[1:]))
		for k := 0; k < w; k++ {
			PJ(&start).DoubleAssign()
		}
	}
	k := canonical(scalars)
	out := make([]J, len(scalars))
	parallelChunks(len(scalars), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			out[i] = identity
			for j := 0; j < windows; j++ {
				if d := digit(&k[i], j, w); d != 0 {
					PJ(&out[i]).AddMixed(&table[j<<w+d])
				}
			}
			if tick != nil && (i-lo+1)%tickEvery == 0 {
				tick(tickEvery)
			}
		}
		if tick != nil {
			tick((hi - lo) % tickEvery)
		}
	})
	return toAffine(out)
}

// fixedBaseG1 and fixedBaseG2 call tick (when not nil) with each batch of products done,
// from the worker goroutines, for progress reports.
func fixedBaseG1(base *bls.G1Affine, scalars []fr.Element, tick func(n int)) []bls.G1Affine {
	var identity bls.G1Jac
	identity.X.SetOne()
	identity.Y.SetOne()
	return fixedBase(base, scalars, identity, bls.BatchJacobianToAffineG1, tick)
}

func fixedBaseG2(base *bls.G2Affine, scalars []fr.Element, tick func(n int)) []bls.G2Affine {
	var identity bls.G2Jac
	identity.X.SetOne()
	identity.Y.SetOne()
	return fixedBase(base, scalars, identity, batchJacobianToAffineG2, tick)
}

// tickEvery is how many products a worker computes between progress ticks.
const tickEvery = 1 << 12

// batchJacobianToAffineG2 converts with one inversion for all points (gnark-crypto has
// the G1 version only). Points at infinity map to (0, 0).
func batchJacobianToAffineG2(points []bls.G2Jac) []bls.G2Affine {
	out := make([]bls.G2Affine, len(points))
	prefix := make([]bls.E2, len(points))
	var acc bls.E2
	acc.SetOne()
	for i := range points {
		prefix[i] = acc
		if !points[i].Z.IsZero() {
			acc.Mul(&acc, &points[i].Z)
		}
	}
	acc.Inverse(&acc)
	for i := len(points) - 1; i >= 0; i-- {
		if points[i].Z.IsZero() {
			continue
		}
		var zInv, zInv2 bls.E2
		zInv.Mul(&acc, &prefix[i])
		acc.Mul(&acc, &points[i].Z)
		zInv2.Square(&zInv)
		out[i].X.Mul(&points[i].X, &zInv2)
		out[i].Y.Mul(&points[i].Y, &zInv2).Mul(&out[i].Y, &zInv)
	}
	return out
}

// parallelChunks runs f over [0, n) split across the CPUs.
func parallelChunks(n int, f func(lo, hi int)) {
	tasks := max(1, min(runtime.NumCPU(), n/256))
	var wg sync.WaitGroup
	for t := 0; t < tasks; t++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f(n*t/tasks, n*(t+1)/tasks)
		}()
	}
	wg.Wait()
}
