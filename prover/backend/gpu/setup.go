package gpu

import (
	"errors"
	"fmt"
	"math/big"
	"unsafe"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr/fft"
	"github.com/snarkpipe/snarkpipe/cuda"
	"github.com/snarkpipe/snarkpipe/prover/backend"
	"github.com/snarkpipe/snarkpipe/prover/r1cs"
)

var _ backend.KeyGenerator = (*Backend)(nil)

// GenerateKey computes a benchmark key on the device (see backend.KeyGenerator). The
// scalar vectors follow groth16.DevSetup exactly, so the same waste gives the same points.
func (b *Backend) GenerateKey(s *r1cs.Shape, w backend.SetupWaste) (backend.ResidentKey, []fr.Element, error) {
	var k backend.ResidentKey
	if !b.lib.HasSetup() || !b.lib.HasSparse() {
		return k, nil, wrap("generate key", fmt.Errorf("setup: %w", cuda.ErrMissingSymbol))
	}
	if err := checkShape(s); err != nil {
		return k, nil, err
	}
	sc, err := newSetupConsts(s.DomainSize(), &w)
	if err != nil {
		return k, nil, err
	}
	idxA, idxB := densityIndices(s)
	var ic []fr.Element
	var out [5]cuda.DevPtr // h, l, a, b_g1, b_g2 bases
	err = b.call(func(ctx cuda.Ctx) error {
		g := &keyGen{b: b, ctx: ctx, s: s, sc: sc}
		defer g.freeAll()
		var err error
		ic, out, err = g.run(idxA, idxB)
		return err
	})
	if err != nil {
		_ = b.call(func(ctx cuda.Ctx) error {
			for _, p := range out {
				if p != 0 {
					_ = b.lib.Free(ctx, p)
				}
			}
			return nil
		})
		return k, nil, wrap("generate key", err)
	}
	g1 := func(p cuda.DevPtr, n int) backend.G1Bases { return &g1Bases{deviceBases{b: b, ptr: p, n: n}} }
	k.H = g1(out[0], s.DomainSize()-1)
	k.L = g1(out[1], s.NumAux)
	k.A = g1(out[2], len(idxA))
	k.BG1 = g1(out[3], len(idxB))
	k.BG2 = &g2Bases{deviceBases{b: b, ptr: out[4], n: len(idxB), g2: true}}
	return k, ic, nil
}

// setupConsts are the host-side constants of one setup.
type setupConsts struct {
	w                backend.SetupWaste
	omega            fr.Element
	lagScale         fr.Element // t(τ)/m
	hScale           fr.Element // t(τ)/δ
	gammaInv, deltaI fr.Element
}

func newSetupConsts(m int, w *backend.SetupWaste) (*setupConsts, error) {
	sc := &setupConsts{w: *w, omega: fft.NewDomain(uint64(m), fft.WithoutPrecompute()).Generator}
	var t fr.Element
	t.Exp(w.Tau, big.NewInt(int64(m)))
	one := fr.One()
	t.Sub(&t, &one)
	if t.IsZero() || w.Gamma.IsZero() || w.Delta.IsZero() {
		return nil, errors.New("gpu backend: setup waste is degenerate (τ in the domain, or γ or δ zero)")
	}
	var mInv fr.Element
	mInv.SetUint64(uint64(m)).Inverse(&mInv)
	sc.lagScale.Mul(&t, &mInv)
	sc.gammaInv.Inverse(&w.Gamma)
	sc.deltaI.Inverse(&w.Delta)
	sc.hScale.Mul(&t, &sc.deltaI)
	return sc, nil
}

// keyGen holds one setup's device temporaries.
type keyGen struct {
	b     *Backend
	ctx   cuda.Ctx
	s     *r1cs.Shape
	sc    *setupConsts
	temps []cuda.DevPtr
}

func (g *keyGen) alloc(bytes uint64) (cuda.DevPtr, error) {
	p, err := g.b.lib.Alloc(g.ctx, max(bytes, 1))
	if err == nil {
		g.temps = append(g.temps, p)
	}
	return p, err
}

func (g *keyGen) upload(p unsafe.Pointer, bytes uint64) (cuda.DevPtr, error) {
	d, err := g.alloc(bytes)
	if err == nil && p != nil && bytes > 0 {
		err = g.b.lib.Upload(g.ctx, d, p, bytes)
	}
	return d, err
}

func (g *keyGen) freeAll() {
	for _, p := range g.temps {
		_ = g.b.lib.Free(g.ctx, p)
	}
	g.temps = nil
}

// run computes the five base vectors; ic is downloaded for the host VK.
func (g *keyGen) run(idxA, idxB []uint32) (ic []fr.Element, out [5]cuda.DevPtr, err error) {
	s, sc, lib, ctx := g.s, g.sc, g.b.lib, g.ctx
	m, nIn, vars := s.DomainSize(), s.NumInputs, s.NumInputs+s.NumAux
	lag, err := g.alloc(uint64(m) * frBytes)
	if err != nil {
		return nil, out, err
	}
	tau := sc.w.Tau
	if err = lib.Lagrange(ctx, lag, lg2(m), unsafe.Pointer(&sc.omega), unsafe.Pointer(&tau), unsafe.Pointer(&sc.lagScale)); err != nil {
		return nil, out, err
	}
	coeffs, err := g.upload(unsafe.Pointer(&s.Coeffs[0]), uint64(len(s.Coeffs))*frBytes)
	if err != nil {
		return nil, out, err
	}
	var uvw [3]cuda.DevPtr
	for i, mat := range []*r1cs.Matrix{&s.A, &s.B, &s.C} {
		if uvw[i], err = g.columns(mat, vars, coeffs, lag); err != nil {
			return nil, out, err
		}
	}
	// ic and l: (β·u + α·v + w)/γ over the inputs, /δ over the aux variables.
	lw, err := g.alloc(uint64(vars) * frBytes)
	if err != nil {
		return nil, out, err
	}
	for _, part := range []struct {
		lo, n int
		k     fr.Element
	}{{0, nIn, sc.gammaInv}, {nIn, s.NumAux, sc.deltaI}} {
		off := cuda.DevPtr(part.lo * frBytes)
		k := [3]fr.Element{sc.w.Beta, sc.w.Alpha, part.k}
		if err = lib.Lincomb(ctx, lw+off, uvw[0]+off, uvw[1]+off, uvw[2]+off, uint64(part.n), unsafe.Pointer(&k[0])); err != nil {
			return nil, out, err
		}
	}
	if ic, err = g.b.download(ctx, lw, nIn); err != nil {
		return nil, out, err
	}
	g.release(lag, uvw[2])
	hs, err := g.alloc(uint64(m-1) * frBytes)
	if err != nil {
		return nil, out, err
	}
	if err = lib.Powers(ctx, hs, uint64(m-1), unsafe.Pointer(&tau), unsafe.Pointer(&sc.hScale)); err != nil {
		return nil, out, err
	}
	as, err := g.gathered(uvw[0], idxA)
	if err != nil {
		return nil, out, err
	}
	bs, err := g.gathered(uvw[1], idxB)
	if err != nil {
		return nil, out, err
	}
	// Only the five scalar vectors are left for the multiplications: the peak while the
	// bases are written is the bases plus these.
	g.release(uvw[0], uvw[1])
	jobs := []struct {
		scalars cuda.DevPtr
		n       int
		g2      bool
	}{{hs, m - 1, false}, {lw + cuda.DevPtr(nIn*frBytes), s.NumAux, false}, {as, len(idxA), false}, {bs, len(idxB), false}, {bs, len(idxB), true}}
	t1, t2 := fixedTables()
	for i, j := range jobs {
		size, table := uint64(g1AffineBytes), unsafe.Pointer(&t1[0])
		if j.g2 {
			size, table = g2AffineBytes, unsafe.Pointer(&t2[0])
		}
		if out[i], err = lib.Alloc(ctx, max(uint64(j.n)*size, 1)); err != nil {
			return nil, out, err
		}
		if err = lib.FixedMul(ctx, j.g2, out[i], j.scalars, uint64(j.n), table); err != nil {
			return nil, out, err
		}
	}
	return ic, out, nil
}

// columns returns u_i(τ) = Σ_rows coeff·L_row(τ) per variable: the transposed matrix
// (built on the host, O(terms)) times the Lagrange vector, by the CSR product kernel.
func (g *keyGen) columns(mat *r1cs.Matrix, vars int, coeffs, lag cuda.DevPtr) (cuda.DevPtr, error) {
	rowPtr, col, coeff := transpose(mat, vars)
	m := cuda.CSR{Coeffs: coeffs, Rows: uint64(vars)}
	var err error
	if m.RowPtr, err = g.upload(unsafe.Pointer(&rowPtr[0]), uint64(len(rowPtr))*8); err != nil {
		return 0, err
	}
	if m.Col, err = g.upload(u32Ptr(col), uint64(len(col))*4); err != nil {
		return 0, err
	}
	if m.Coeff, err = g.upload(u32Ptr(coeff), uint64(len(coeff))*4); err != nil {
		return 0, err
	}
	out, err := g.alloc(uint64(vars) * frBytes)
	if err != nil {
		return 0, err
	}
	if err := g.b.lib.CSREval(g.ctx, m, lag, out, uint64(vars)); err != nil {
		return 0, err
	}
	// The transposed side is needed once: free it now, so the peak at full size holds
	// one side's terms rather than three.
	g.release(m.RowPtr, m.Col, m.Coeff)
	return out, nil
}

// release frees temporaries before the end of the setup.
func (g *keyGen) release(ps ...cuda.DevPtr) {
	for _, p := range ps {
		for i, q := range g.temps {
			if q == p {
				_ = g.b.lib.Free(g.ctx, p)
				g.temps = append(g.temps[:i], g.temps[i+1:]...)
				break
			}
		}
	}
}

func (g *keyGen) gathered(src cuda.DevPtr, idx []uint32) (cuda.DevPtr, error) {
	d, err := g.upload(u32Ptr(idx), uint64(len(idx))*4)
	if err != nil {
		return 0, err
	}
	out, err := g.alloc(uint64(len(idx)) * frBytes)
	if err != nil {
		return 0, err
	}
	return out, g.b.lib.Gather(g.ctx, src, d, uint64(len(idx)), out)
}

// transpose turns a CSR matrix over rows into one over the vars columns (counting sort):
// row i of the result lists the rows where variable i occurs, with the same slots.
func transpose(mat *r1cs.Matrix, vars int) (rowPtr []uint64, col, coeff []uint32) {
	rowPtr = make([]uint64, vars+1)
	for _, c := range mat.Col {
		rowPtr[c+1]++
	}
	for i := 0; i < vars; i++ {
		rowPtr[i+1] += rowPtr[i]
	}
	next := append([]uint64(nil), rowPtr[:vars]...)
	col = make([]uint32, len(mat.Col))
	coeff = make([]uint32, len(mat.Col))
	rows := len(mat.RowPtr) - 1
	for j := 0; j < rows; j++ {
		for k := mat.RowPtr[j]; k < mat.RowPtr[j+1]; k++ {
			c := mat.Col[k]
			col[next[c]] = uint32(j)
			coeff[next[c]] = mat.Coeff[k]
			next[c]++
		}
	}
	return rowPtr, col, coeff
}

// fixedTables returns the 64×16 window tables d·2^(4w)·G of the G1 and G2 generators
// (entry d = 0 is the point at infinity, (0, 0)), as snarkpipe_g1/g2_fixed_mul expect.
func fixedTables() ([]bls.G1Affine, []bls.G2Affine) {
	_, _, g1, g2 := bls.Generators()
	j1 := make([]bls.G1Jac, 16*64)
	j2 := make([]bls.G2Jac, 16*64)
	var b1 bls.G1Jac
	var b2 bls.G2Jac
	b1.FromAffine(&g1)
	b2.FromAffine(&g2)
	for w := 0; w < 64; w++ {
		var a1 bls.G1Jac
		var a2 bls.G2Jac
		a1.Set(&b1)
		a2.Set(&b2)
		j1[16*w], j2[16*w] = b1, b2 // placeholder, set to infinity after the batch inversion
		for d := 1; d < 16; d++ {
			j1[16*w+d] = a1
			j2[16*w+d] = a2
			a1.AddAssign(&b1)
			a2.AddAssign(&b2)
		}
		b1 = a1 // 16·2^(4w)·G = 2^(4(w+1))·G
		b2 = a2
	}
	t1, t2 := bls.BatchJacobianToAffineG1(j1), batchToAffineG2(j2)
	for w := 0; w < 64; w++ {
		t1[16*w] = bls.G1Affine{}
		t2[16*w] = bls.G2Affine{}
	}
	return t1, t2
}
