package gadget

import (
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/consensys/gnark-crypto/utils/cpu"
)

// The linear layers (and the full rounds' S-boxes) of the native permutation, on
// gnark-crypto's vector operations where those have AVX-512 paths: InnerProduct (AVX-512,
// lazy reduction) and Mul/ScalarMul (AVX-512 IFMA, blocks of 8). Every form computes the
// same field elements as the scalar Mul+Add loops (exact arithmetic, canonical results),
// so the choice changes speed only. Each instance picks its forms once, from its width
// and the CPU, in newPoseidonConstants; without AVX-512 (or with the purego tag) it keeps
// the scalar loops, which the vector operations would only fall back to anyway. Each
// vector form calls clearUpper after its AVX-512 operations.
//
// Measured per product on the 2-core development VM (AVX-512 IFMA), ns, scalar → chosen:
// dense t=3 220 → 110 (broadcast), t=9 2060 → 800 (broadcast), t=12 3400 → 1430
// (columns), t=37 34300 → 7600 (columns); sparse t=3 125 (scalar kept), t=5 210 → 180,
// t=9 400 → 195, t=12 530 → 250, t=37 1780 → 570. The full rounds' S-boxes as three
// vector Muls took a further 5 % (arity 8) and 9 % (arity 11) off WitnessAux.

// poseidonCPU says which of gnark-crypto's vector paths the CPU has: AVX-512
// (InnerProduct) and AVX-512 IFMA (Mul, ScalarMul).
type poseidonCPU struct{ avx512, ifma bool }

// hostCPU is this machine's (both false with the purego tag or off amd64).
var hostCPU = poseidonCPU{avx512: cpu.SupportAVX512, ifma: cpu.SupportAVX512IFMA}

// chooseForms sets c's hot-path forms of mdsFlat, preSparse and the sparse matrices for
// a CPU with has. Any has gives the same values; tests build every combination.
func (c *PoseidonConstants) chooseForms(has poseidonCPU) {
	t := c.Width
	c.mdsMix = newDenseMatrix(c.mdsFlat, t, has)
	c.preMix = newDenseMatrix(c.preSparse, t, has)
	c.sparseVec = has.avx512 && t >= 5
	c.sboxVec = has.ifma && t >= 8
}

// denseForm is how a dense t×t product s ← sᵀ·m is computed.
type denseForm uint8

const (
	// denseScalar: t² Mul+Add (mulRowVector).
	denseScalar denseForm = iota
	// denseBroadcast: one IFMA Mul of the t² row-major entries by s[i] repeated along
	// row i, then t−1 vector Adds of the rows. Its buffer bounds it to t ≤ broadcastMaxWidth.
	denseBroadcast
	// denseColumns: t InnerProducts of a column (column-major copy) with s.
	denseColumns
)

// broadcastMaxWidth bounds denseBroadcast; beyond it the columns form measured as fast or
// faster (broadcast vs columns: t=12 1430 vs 1430 ns, t=17 3000 vs 2350 ns).
const broadcastMaxWidth = 9

// denseMatrix is a t×t matrix with the layout its chosen form reads.
type denseMatrix struct {
	rows []fr.Element // row-major: m[i][j] at i·t+j
	cols []fr.Element // column-major, set for denseColumns only
	form denseForm
}

// newDenseMatrix wraps the row-major t×t matrix rows (shared, not copied).
func newDenseMatrix(rows []fr.Element, t int, has poseidonCPU) denseMatrix {
	d := denseMatrix{rows: rows, form: denseScalar}
	switch {
	case has.ifma && t <= broadcastMaxWidth:
		d.form = denseBroadcast
	case has.avx512 && t >= 5:
		d.form, d.cols = denseColumns, transposed(rows, t)
	}
	return d
}

// transposed returns the column-major copy of the row-major t×t matrix rows.
func transposed(rows []fr.Element, t int) []fr.Element {
	cols := make([]fr.Element, t*t)
	for i := range t {
		for j := range t {
			cols[j*t+i] = rows[i*t+j]
		}
	}
	return cols
}

// apply sets s ← sᵀ·m.
func (d *denseMatrix) apply(s *poseidonState, t int) {
	switch d.form {
	case denseBroadcast:
		mulRowVectorBroadcast(s, d.rows, t)
	case denseColumns:
		mulRowVectorColumns(s, d.cols, t)
	default:
		mulRowVector(s, d.rows, t)
	}
}

// mulRowVector sets s ← sᵀ·m for the row-major t×t matrix m: the scalar form, and the
// reference the others are tested against.
func mulRowVector(s *poseidonState, m []fr.Element, t int) {
	var out poseidonState
	var tmp fr.Element
	for i := range t {
		row := m[i*t : (i+1)*t]
		for j := range t {
			tmp.Mul(&row[j], &s[i])
			out[j].Add(&out[j], &tmp)
		}
	}
	copy(s[:t], out[:t])
}

// mulRowVectorBroadcast is denseBroadcast: p[i·t+j] = s[i]·m[i][j] in one vector Mul, then
// out = Σ_i p[i·t : (i+1)·t]. t ≤ broadcastMaxWidth.
func mulRowVectorBroadcast(s *poseidonState, m []fr.Element, t int) {
	var buf [broadcastMaxWidth * broadcastMaxWidth]fr.Element
	p := fr.Vector(buf[:t*t])
	for i := range t {
		row := p[i*t : (i+1)*t]
		for j := range row {
			row[j] = s[i]
		}
	}
	p.Mul(p, m[:t*t])
	clearUpper()
	out := fr.Vector(s[:t])
	copy(out, p[:t])
	for i := 1; i < t; i++ {
		out.Add(out, p[i*t:(i+1)*t])
	}
}

// mulRowVectorColumns is denseColumns: out[j] = ⟨column j, s⟩ for the column-major mT.
func mulRowVectorColumns(s *poseidonState, mT []fr.Element, t int) {
	var out poseidonState
	in := fr.Vector(s[:t])
	for j := range t {
		col := fr.Vector(mT[j*t : (j+1)*t])
		out[j] = col.InnerProduct(in)
	}
	clearUpper()
	copy(s[:t], out[:t])
}

// mulSparse applies M″: new[0] = Σ wHat[i]·s[i]; new[j] = s[j] + vRest[j−1]·s[0]. The
// scalar form, and the reference.
func mulSparse(s *poseidonState, m *sparseMatrix, t int) {
	var first, tmp fr.Element
	for i := range t {
		tmp.Mul(&m.wHat[i], &s[i])
		first.Add(&first, &tmp)
	}
	for j := 1; j < t; j++ {
		tmp.Mul(&m.vRest[j-1], &s[0])
		s[j].Add(&s[j], &tmp)
	}
	s[0] = first
}

// mulSparseVector is mulSparse as an InnerProduct, a ScalarMul and a vector Add.
func mulSparseVector(s *poseidonState, m *sparseMatrix, t int) {
	wHat := fr.Vector(m.wHat[:t])
	first := wHat.InnerProduct(s[:t])
	clearUpper()
	var buf [poseidonMaxWidth - 1]fr.Element
	prod := fr.Vector(buf[:t-1])
	prod.ScalarMul(m.vRest[:t-1], &s[0])
	clearUpper()
	rest := fr.Vector(s[1:t])
	rest.Add(rest, prod)
	s[0] = first
}

// quinticVector sets x[i] ← x[i]⁵ for the whole of x, leaving x[i]² in x2 and x[i]⁴ in
// x4 (each len(x)).
func quinticVector(x, x2, x4 fr.Vector) {
	x2.Mul(x, x)
	x4.Mul(x2, x2)
	x.Mul(x, x4)
	clearUpper()
}
