package r1cs

import (
	"slices"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// Term is coeff · variable.
type Term struct {
	Var   Variable
	Coeff fr.Element
}

// LC is a linear combination. The zero value is the empty combination (= 0). Methods
// append in place, so a caller that keeps one LC per row side and calls Reset between
// rows allocates nothing once the backing arrays have grown.
//
// Repeated variables are allowed while building; they merge when a constraint system
// canonicalizes the row (see Canonicalize).
type LC []Term

var frOne = func() fr.Element { var e fr.Element; e.SetOne(); return e }()

// CoeffOne returns the field element 1 (Montgomery form).
func CoeffOne() fr.Element { return frOne }

// Reset empties lc, keeping its backing array.
func (lc *LC) Reset() { *lc = (*lc)[:0] }

// Add appends +1·v.
func (lc *LC) Add(v Variable) { *lc = append(*lc, Term{Var: v, Coeff: frOne}) }

// Sub appends −1·v.
func (lc *LC) Sub(v Variable) {
	t := Term{Var: v}
	t.Coeff.Neg(&frOne)
	*lc = append(*lc, t)
}

// AddTerm appends c·v.
func (lc *LC) AddTerm(v Variable, c *fr.Element) { *lc = append(*lc, Term{Var: v, Coeff: *c}) }

// SubTerm appends −c·v.
func (lc *LC) SubTerm(v Variable, c *fr.Element) {
	t := Term{Var: v}
	t.Coeff.Neg(c)
	*lc = append(*lc, t)
}

// AddLC appends every term of o.
func (lc *LC) AddLC(o LC) { *lc = append(*lc, o...) }

// SubLC appends every term of o negated.
func (lc *LC) SubLC(o LC) {
	for i := range o {
		lc.SubTerm(o[i].Var, &o[i].Coeff)
	}
}

// AddScaledLC appends c·t for every term t of o.
func (lc *LC) AddScaledLC(c *fr.Element, o LC) {
	for i := range o {
		t := Term{Var: o[i].Var}
		t.Coeff.Mul(&o[i].Coeff, c)
		*lc = append(*lc, t)
	}
}

// Eval returns Σ coeff·value, reading values through the two assignments.
func (lc LC) Eval(inputs, aux []fr.Element) fr.Element {
	var sum, t fr.Element
	for i := range lc {
		v := &inputs[0]
		if lc[i].Var.IsAux() {
			v = &aux[lc[i].Var.Index()]
		} else {
			v = &inputs[lc[i].Var.Index()]
		}
		if lc[i].Coeff == frOne {
			sum.Add(&sum, v)
			continue
		}
		t.Mul(&lc[i].Coeff, v)
		sum.Add(&sum, &t)
	}
	return sum
}

// Canonicalize sorts the terms by variable (inputs before aux, each by index), merges
// repeated variables and drops terms whose coefficient is zero, in place. This is the form
// bellpepper's LinearCombination keeps, and the form the recorder stores.
func (lc *LC) Canonicalize() {
	s := *lc
	if len(s) > 1 && !sortedUnique(s) {
		sortTerms(s)
	}
	out := s[:0]
	for i := 0; i < len(s); {
		t := s[i]
		j := i + 1
		for ; j < len(s) && s[j].Var == t.Var; j++ {
			t.Coeff.Add(&t.Coeff, &s[j].Coeff)
		}
		if !t.Coeff.IsZero() {
			out = append(out, t)
		}
		i = j
	}
	*lc = out
}

// sortTerms orders terms by variable without allocating: insertion sort for the short
// combinations most rows have, slices.SortFunc (stable order is not needed: equal
// variables merge) for long ones.
func sortTerms(s LC) {
	if len(s) > 12 {
		slices.SortFunc(s, func(a, b Term) int { return int(int64(a.Var) - int64(b.Var)) })
		return
	}
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j].Var < s[j-1].Var; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

func sortedUnique(s LC) bool {
	for i := 1; i < len(s); i++ {
		if s[i-1].Var >= s[i].Var {
			return false
		}
	}
	return true
}
