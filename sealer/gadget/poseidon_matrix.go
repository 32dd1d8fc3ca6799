package gadget

import (
	"errors"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// Small dense square matrices over Fr, used only while deriving Poseidon constants (at
// most 37×37, once per arity), so clarity wins over speed here.

// frMatrix is a square matrix, m[row][column].
type frMatrix [][]fr.Element

func newFrMatrix(n int) frMatrix {
	m := make(frMatrix, n)
	for i := range m {
		m[i] = make([]fr.Element, n)
	}
	return m
}

func identityMatrix(n int) frMatrix {
	m := newFrMatrix(n)
	for i := range m {
		m[i][i].SetOne()
	}
	return m
}

// cauchyMDS is neptune's MDS matrix: M[i][j] = 1/(x_i + y_j) with x_i = i, y_j = t + j.
func cauchyMDS(t int) frMatrix {
	m := newFrMatrix(t)
	for i := range t {
		for j := range t {
			m[i][j].SetUint64(uint64(i + t + j))
			m[i][j].Inverse(&m[i][j])
		}
	}
	return m
}

// mul returns the ordinary product a·b.
func (a frMatrix) mul(b frMatrix) frMatrix {
	n := len(a)
	out := newFrMatrix(n)
	var t fr.Element
	for i := range n {
		for j := range n {
			for k := range n {
				t.Mul(&a[i][k], &b[k][j])
				out[i][j].Add(&out[i][j], &t)
			}
		}
	}
	return out
}

// applyRow returns vᵀ·m, i.e. out[j] = Σ_i v[i]·m[i][j]. This is neptune's apply_matrix
// and the way neptune multiplies its state by every matrix.
func (a frMatrix) applyRow(v []fr.Element) []fr.Element {
	out := make([]fr.Element, len(v))
	var t fr.Element
	for j := range out {
		for i := range v {
			t.Mul(&a[i][j], &v[i])
			out[j].Add(&out[j], &t)
		}
	}
	return out
}

// minor00 is the matrix without row 0 and column 0 (m̂).
func (a frMatrix) minor00() frMatrix {
	n := len(a) - 1
	out := newFrMatrix(n)
	for i := range n {
		copy(out[i], a[i+1][1:])
	}
	return out
}

var errSingularMatrix = errors.New("gadget: singular matrix")

// inverse is Gauss–Jordan elimination. The inverse is unique, so any pivoting order gives
// neptune's result.
func (a frMatrix) inverse() (frMatrix, error) {
	n := len(a)
	work := newFrMatrix(n)
	for i := range a {
		copy(work[i], a[i])
	}
	inv := identityMatrix(n)
	var f, t fr.Element
	for col := range n {
		pivot := -1
		for r := col; r < n; r++ {
			if !work[r][col].IsZero() {
				pivot = r
				break
			}
		}
		if pivot < 0 {
			return nil, errSingularMatrix
		}
		work[col], work[pivot] = work[pivot], work[col]
		inv[col], inv[pivot] = inv[pivot], inv[col]
		f.Inverse(&work[col][col])
		for j := range n {
			work[col][j].Mul(&work[col][j], &f)
			inv[col][j].Mul(&inv[col][j], &f)
		}
		for r := range n {
			if r == col || work[r][col].IsZero() {
				continue
			}
			f = work[r][col]
			for j := range n {
				t.Mul(&f, &work[col][j])
				work[r][j].Sub(&work[r][j], &t)
				t.Mul(&f, &inv[col][j])
				inv[r][j].Sub(&inv[r][j], &t)
			}
		}
	}
	return inv, nil
}

// sparseMatrix is the M″ of one partial round: identity except for column 0 (wHat, all t
// entries, wHat[0] = M″[0][0]) and row 0 (vRest = M″[0][1..]).
type sparseMatrix struct {
	wHat  []fr.Element
	vRest []fr.Element
}

// toDense expands s, for tests.
func (s sparseMatrix) toDense() frMatrix {
	m := identityMatrix(len(s.wHat))
	for i := range s.wHat {
		m[i][0] = s.wHat[i]
	}
	for j := range s.vRest {
		m[0][j+1] = s.vRest[j]
	}
	return m
}

// primeAndDoublePrime splits m into M′ (m with row 0 and column 0 replaced by the unit
// vector) and the sparse M″ (row 0 of m; below it column 0 holds ŵ = wᵀ·m̂⁻¹ with
// w = m[1..][0], and the diagonal holds 1), so that M′·M″ = m.
func (a frMatrix) primeAndDoublePrime() (frMatrix, sparseMatrix, error) {
	n := len(a)
	hatInv, err := a.minor00().inverse()
	if err != nil {
		return nil, sparseMatrix{}, err
	}
	w := make([]fr.Element, n-1)
	for i := 1; i < n; i++ {
		w[i-1] = a[i][0]
	}
	wHat := hatInv.applyRow(w)

	prime := newFrMatrix(n)
	prime[0][0].SetOne()
	for i := 1; i < n; i++ {
		copy(prime[i][1:], a[i][1:])
	}
	s := sparseMatrix{wHat: make([]fr.Element, n), vRest: make([]fr.Element, n-1)}
	s.wHat[0] = a[0][0]
	copy(s.wHat[1:], wHat)
	copy(s.vRest, a[0][1:])
	return prime, s, nil
}

// factorToSparse is neptune's factor_to_sparse_matrixes(M, rounds): it peels one sparse
// M″ per partial round off the back, folding the dense remainder into the matrix used
// before the partial rounds (pre_sparse). The returned list is in application order.
func factorToSparse(m frMatrix, rounds int) (preSparse frMatrix, sparse []sparseMatrix, err error) {
	cur := m
	sparse = make([]sparseMatrix, rounds)
	for i := range rounds {
		prime, s, err := cur.primeAndDoublePrime()
		if err != nil {
			return nil, nil, err
		}
		sparse[rounds-1-i] = s
		cur = m.mul(prime)
	}
	return cur, sparse, nil
}
