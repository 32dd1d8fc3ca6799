package r1cs

import "github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

// Recorder is a ConstraintSystem that stores the system's structure (values ignored):
// CSR matrices, density bitmaps and the coefficient table. Finish returns the Shape.
type Recorder struct {
	namespaces
	shape    Shape
	density  Density
	coeffIdx map[fr.Element]uint32
	finished bool
}

// NewRecorder returns a recorder with ONE allocated, its buffers pre-sized from c.
func NewRecorder(c Capacity) *Recorder {
	rows := c.Constraints + c.Inputs
	r := &Recorder{coeffIdx: make(map[fr.Element]uint32)}
	s := &r.shape
	for i, m := range []*Matrix{&s.A, &s.B, &s.C} {
		m.RowPtr = make([]uint64, 1, rows+1)
		m.Col = make([]uint32, 0, c.matrixNonZeros(i))
		m.Coeff = make([]uint32, 0, c.matrixNonZeros(i))
	}
	r.density = newDensity(c)
	var minusOne fr.Element
	minusOne.Neg(&frOne)
	r.coeff(&frOne)
	r.coeff(&minusOne)
	r.AllocInput(fr.Element{})
	return r
}

func (r *Recorder) coeff(c *fr.Element) uint32 {
	if idx, ok := r.coeffIdx[*c]; ok {
		return idx
	}
	idx := uint32(len(r.shape.Coeffs))
	r.shape.Coeffs = append(r.shape.Coeffs, *c)
	r.coeffIdx[*c] = idx
	return idx
}

func (r *Recorder) Alloc(fr.Element) Variable {
	s := &r.shape
	r.density.allocAux()
	s.NumAux++
	return Aux(s.NumAux - 1)
}

func (r *Recorder) AllocInput(fr.Element) Variable {
	if r.finished {
		panic("r1cs: AllocInput after Finish")
	}
	s := &r.shape
	r.density.allocInput()
	s.NumInputs++
	return Input(s.NumInputs - 1)
}

func (r *Recorder) Enforce(_ string, a, b, c *LC) {
	s := &r.shape
	s.NumConstraints++
	r.appendRow(&s.A, a)
	r.appendRow(&s.B, b)
	r.appendRow(&s.C, c)
	r.density.mark(deref(a), deref(b))
}

// appendRow stores lc canonically. Until Finish, Col holds raw Variable values; Finish
// rewrites them as columns of z once the number of inputs is final.
func (r *Recorder) appendRow(m *Matrix, lc *LC) {
	if lc != nil {
		lc.Canonicalize()
		for i := range *lc {
			t := &(*lc)[i]
			m.Col = append(m.Col, uint32(t.Var))
			m.Coeff = append(m.Coeff, r.coeff(&t.Coeff))
		}
	}
	m.RowPtr = append(m.RowPtr, uint64(len(m.Col)))
}

// Finish appends the per-input rows, resolves columns and computes the digest. The
// recorder must not be used afterwards.
func (r *Recorder) Finish() *Shape {
	if r.finished {
		return &r.shape
	}
	r.finished = true
	s := &r.shape
	for i := 0; i < s.NumInputs; i++ {
		s.A.Col = append(s.A.Col, uint32(Input(i)))
		s.A.Coeff = append(s.A.Coeff, coeffOneIdx)
		s.A.RowPtr = append(s.A.RowPtr, uint64(len(s.A.Col)))
		s.B.RowPtr = append(s.B.RowPtr, uint64(len(s.B.Col)))
		s.C.RowPtr = append(s.C.RowPtr, uint64(len(s.C.Col)))
	}
	for _, m := range []*Matrix{&s.A, &s.B, &s.C} {
		for k, v := range m.Col {
			m.Col[k] = uint32(Variable(v).Column(s.NumInputs))
		}
	}
	r.coeffIdx = nil
	s.Density = r.density
	s.Digest = s.digest()
	return s
}
