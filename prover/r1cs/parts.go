package r1cs

import (
	"errors"
	"fmt"
	"slices"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// Parts: a system that is ONE, a head, then parts synthesized one after the other, each
// allocating a fixed number of variables and referring in its rows only to its own
// variables, the head's and ONE (the challenges of a PoRep partition after the roots they
// share, the sectors of a Window PoSt partition with an empty head), can be recorded part
// by part, concurrently, and joined in order into exactly the recording one Recorder
// makes of the whole: same rows, columns, coefficient table order, density and digest.

// PartsLayout describes a system recorded in parts: after ONE, a head of HeadInputs
// inputs and HeadAux aux variables, then N parts, each allocating InputsPer inputs and
// AuxPer aux variables.
type PartsLayout struct {
	HeadInputs, HeadAux  int
	N, InputsPer, AuxPer int
}

// first returns the absolute indices of part i's first input and aux variable.
func (l PartsLayout) first(i int) (input, aux int) {
	return 1 + l.HeadInputs + i*l.InputsPer, l.HeadAux + i*l.AuxPer
}

// ErrPartReference is recorded by a PartRecorder whose rows refer to a variable that is
// neither the part's, the head's nor ONE: such a system cannot be recorded in parts.
var ErrPartReference = errors.New("r1cs: a part's row refers to a variable outside the part")

// ErrPartOrder reports a part joined out of place (its first variables are not where the
// previous part ended).
var ErrPartOrder = errors.New("r1cs: part joined out of order")

// PartRecorder records one part. Its variables are numbered as in a recording of the
// whole system; its rows, coefficient table and density are its own until a Joiner
// appends them, with the density marks its rows put on head variables (headMarks).
type PartRecorder struct {
	namespaces
	layout               PartsLayout
	firstInput, firstAux int
	inputs, aux, rows    int
	A, B, C              Matrix // Col holds raw Variable values, as in Recorder
	coeffs               []fr.Element
	coeffIdx             map[fr.Element]uint32
	density              Density // bit i: the part's i-th input or aux variable
	headMarks            []headMark
	in                   *window // recorded in place (newPartRecorderIn), else nil
	err                  error
}

// headMark is a density mark on ONE or a head variable: side 'A' or 'B'.
type headMark struct {
	v    Variable
	side byte
}

// NewPartRecorder returns a recorder for part i of layout, its buffers pre-sized from c
// (the part's own sizes).
func NewPartRecorder(c Capacity, layout PartsLayout, i int) *PartRecorder {
	firstInput, firstAux := layout.first(i)
	p := &PartRecorder{layout: layout, firstInput: firstInput, firstAux: firstAux, coeffIdx: make(map[fr.Element]uint32)}
	for i, m := range []*Matrix{&p.A, &p.B, &p.C} {
		m.RowPtr = make([]uint64, 1, c.Constraints+1)
		m.Col = make([]uint32, 0, c.matrixNonZeros(i))
		m.Coeff = make([]uint32, 0, c.matrixNonZeros(i))
	}
	p.density = newDensity(c)
	var minusOne fr.Element
	minusOne.Neg(&frOne)
	p.coeff(&frOne) // the fixed slots of every table (coeffOneIdx, coeffMinusOneIdx)
	p.coeff(&minusOne)
	return p
}

// window is a part recorded in place (newPartRecorderIn): its rows and terms are
// written straight into the whole recording's buffers, at offsets fixed in advance.
type window struct {
	rows     int
	terms    [3]int
	termBase [3]int // the part's first term per matrix: added to its row pointers
	rowBase  int    // index of the part's first row pointer (after its previous row's)
}

// newPartRecorderIn returns a recorder for part i of layout that writes its rows into
// dst's buffers at w (dst's slices already long enough: Joiner.reserve). The part's
// coefficient indices are its own until Joiner.addIn remaps them in place.
func newPartRecorderIn(layout PartsLayout, i int, dst *Shape, w window) *PartRecorder {
	p := NewPartRecorder(Capacity{Inputs: layout.InputsPer, Aux: layout.AuxPer}, layout, i)
	p.in = &w
	for k, pair := range [3][2]*Matrix{{&p.A, &dst.A}, {&p.B, &dst.B}, {&p.C, &dst.C}} {
		m, d := pair[0], pair[1]
		m.RowPtr = d.RowPtr[w.rowBase : w.rowBase : w.rowBase+w.rows] // no leading 0
		m.Col = d.Col[w.termBase[k] : w.termBase[k] : w.termBase[k]+w.terms[k]]
		m.Coeff = d.Coeff[w.termBase[k] : w.termBase[k] : w.termBase[k]+w.terms[k]]
	}
	return p
}

// fitsWindow reports whether a part recorded in place filled exactly its window (a part
// that wrote more grew its slices away from dst's, so it corrupted nothing).
func (p *PartRecorder) fitsWindow() bool {
	w := p.in
	if p.rows != w.rows {
		return false
	}
	for k, m := range []*Matrix{&p.A, &p.B, &p.C} {
		if len(m.Col) != w.terms[k] || cap(m.Col) != w.terms[k] || len(m.RowPtr) != w.rows || cap(m.RowPtr) != w.rows {
			return false
		}
	}
	return true
}

func (p *PartRecorder) coeff(c *fr.Element) uint32 {
	if idx, ok := p.coeffIdx[*c]; ok {
		return idx
	}
	idx := uint32(len(p.coeffs))
	p.coeffs = append(p.coeffs, *c)
	p.coeffIdx[*c] = idx
	return idx
}

func (p *PartRecorder) Alloc(fr.Element) Variable {
	p.density.allocAux()
	p.aux++
	return Aux(p.firstAux + p.aux - 1)
}

func (p *PartRecorder) AllocInput(fr.Element) Variable {
	p.density.allocInput()
	p.inputs++
	return Input(p.firstInput + p.inputs - 1)
}

func (p *PartRecorder) Enforce(_ string, a, b, c *LC) {
	p.rows++
	p.appendRow(&p.A, a, 'A')
	p.appendRow(&p.B, b, 'B')
	p.appendRow(&p.C, c, 'C')
}

// appendRow stores lc canonically, as Recorder.appendRow does, and marks the density of
// side A or B with the part's local indices.
func (p *PartRecorder) appendRow(m *Matrix, lc *LC, side byte) {
	if lc != nil {
		lc.Canonicalize()
		for i := range *lc {
			t := &(*lc)[i]
			p.mark(t.Var, side)
			m.Col = append(m.Col, uint32(t.Var))
			m.Coeff = append(m.Coeff, p.coeff(&t.Coeff))
		}
	}
	m.RowPtr = append(m.RowPtr, uint64(len(m.Col)))
}

// mark checks that v is ONE, a head variable or one of the part's, and records its
// density.
func (p *PartRecorder) mark(v Variable, side byte) {
	i := v.Index()
	switch {
	case v.IsAux() && i >= p.firstAux && i < p.firstAux+p.aux:
		switch side {
		case 'A':
			p.density.AAux.Set(i - p.firstAux)
		case 'B':
			p.density.BAux.Set(i - p.firstAux)
		}
	case !v.IsAux() && i >= p.firstInput && i < p.firstInput+p.inputs:
		if side == 'B' {
			p.density.BInput.Set(i - p.firstInput)
		}
	case v.IsAux() && i < p.layout.HeadAux, !v.IsAux() && i < 1+p.layout.HeadInputs: // ONE or the head
		if side == 'B' || (side == 'A' && v.IsAux()) {
			p.headMarks = append(p.headMarks, headMark{v, side})
		}
	default:
		if p.err == nil {
			p.err = fmt.Errorf("%w: %v (the part's inputs start at %d, its aux at %d)", ErrPartReference, v, p.firstInput, p.firstAux)
		}
	}
}

// Err returns the first reference outside the part, or nil.
func (p *PartRecorder) Err() error { return p.err }

// Sizes returns what the part allocated and enforced so far.
func (p *PartRecorder) Sizes() Sizes {
	return Sizes{NumInputs: p.inputs, NumAux: p.aux, NumConstraints: p.rows}
}

// Joiner appends parts, in order, to a recording of ONE and the head: synthesize the
// head into Head(), then Add part 0, 1, …, then Finish.
type Joiner struct {
	rec   *Recorder
	remap []uint32
}

// NewJoiner starts a recording of the whole system, its buffers pre-sized from c (the
// whole system's sizes, as for NewRecorder).
func NewJoiner(c Capacity) *Joiner { return &Joiner{rec: NewRecorder(c)} }

// Head is the system the head is synthesized into, before the first Add.
func (j *Joiner) Head() ConstraintSystem { return j.rec }

// Add appends part p: its rows after the rows so far, its coefficients into the table in
// their order of first appearance, its density bits after those so far. p is not used
// afterwards (its buffers may be dropped).
func (j *Joiner) Add(p *PartRecorder) error {
	if err := j.takeCoeffs(p); err != nil {
		return err
	}
	s := &j.rec.shape
	for _, side := range [3][2]*Matrix{{&s.A, &p.A}, {&s.B, &p.B}, {&s.C, &p.C}} {
		dst, src := side[0], side[1]
		base := uint64(len(dst.Col))
		dst.Col = append(dst.Col, src.Col...)
		for _, c := range src.Coeff {
			dst.Coeff = append(dst.Coeff, j.remap[c])
		}
		for _, r := range src.RowPtr[1:] {
			dst.RowPtr = append(dst.RowPtr, base+r)
		}
	}
	j.addDensity(p)
	return nil
}

// addDensity appends p's density bits and sizes, and applies its marks on the head.
func (j *Joiner) addDensity(p *PartRecorder) {
	d, s := &j.rec.density, &j.rec.shape
	d.AAux.AppendBits(p.density.AAux)
	d.BAux.AppendBits(p.density.BAux)
	d.BInput.AppendBits(p.density.BInput)
	for _, m := range p.headMarks {
		switch {
		case m.side == 'A':
			d.AAux.Set(m.v.Index())
		case m.v.IsAux():
			d.BAux.Set(m.v.Index())
		default:
			d.BInput.Set(m.v.Index())
		}
	}
	s.NumInputs += p.inputs
	s.NumAux += p.aux
	s.NumConstraints += p.rows
}

// reserve lengthens the recording's buffers by more parts of rows rows and terms terms
// each (zeros, overwritten by parts recorded in place) and returns the window of the
// first of them; the next one starts rows rows and terms terms further. After it, only
// addIn may change the buffers until Finish.
func (j *Joiner) reserve(more, rows int, terms [3]int) window {
	s := &j.rec.shape
	w := window{rows: rows, terms: terms, rowBase: len(s.A.RowPtr)}
	for k, m := range []*Matrix{&s.A, &s.B, &s.C} {
		w.termBase[k] = len(m.Col)
		n := more * terms[k]
		m.Col = slices.Grow(m.Col, n)[:len(m.Col)+n]
		m.Coeff = slices.Grow(m.Coeff, n)[:len(m.Coeff)+n]
		m.RowPtr = slices.Grow(m.RowPtr, more*rows)[:len(m.RowPtr)+more*rows]
	}
	return w
}

// next is the window of the part after w's.
func (w window) next() window {
	w.rowBase += w.rows
	for k := range w.termBase {
		w.termBase[k] += w.terms[k]
	}
	return w
}

// addIn joins a part recorded in place, at its window: its coefficient indices and row
// pointers are made the recording's in place, its density appended as Add does.
func (j *Joiner) addIn(p *PartRecorder) error {
	if p.err == nil && !p.fitsWindow() {
		return fmt.Errorf("%w: %d rows and %d, %d, %d terms, its window %d rows and %v terms", ErrPartSize, p.rows, len(p.A.Col), len(p.B.Col), len(p.C.Col), p.in.rows, p.in.terms)
	}
	if err := j.takeCoeffs(p); err != nil {
		return err
	}
	for k, m := range []*Matrix{&p.A, &p.B, &p.C} {
		for t, c := range m.Coeff {
			m.Coeff[t] = j.remap[c]
		}
		base := uint64(p.in.termBase[k])
		for r := range m.RowPtr {
			m.RowPtr[r] += base
		}
	}
	j.addDensity(p)
	return nil
}

// takeCoeffs checks that p is sound and starts where the recording is, and puts its
// coefficients into the table, leaving j.remap[local index] = the table's index.
func (j *Joiner) takeCoeffs(p *PartRecorder) error {
	if p.err != nil {
		return p.err
	}
	s := &j.rec.shape
	if p.firstInput != s.NumInputs || p.firstAux != s.NumAux {
		return fmt.Errorf("%w: part starts at input %d, aux %d; the recording is at %d, %d", ErrPartOrder, p.firstInput, p.firstAux, s.NumInputs, s.NumAux)
	}
	j.remap = j.remap[:0]
	for k := range p.coeffs {
		j.remap = append(j.remap, j.rec.coeff(&p.coeffs[k]))
	}
	return nil
}

// Finish completes the recording as Recorder.Finish does (per-input rows, columns,
// digest).
func (j *Joiner) Finish() *Shape { return j.rec.Finish() }
