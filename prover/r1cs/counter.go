package r1cs

import "github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

// Counter is a ConstraintSystem that keeps only sizes and density bitmaps: the cheapest
// way to learn a circuit's shape (rows, inputs, aux, |a|, |b|).
type Counter struct {
	namespaces
	sizes   Sizes
	density Density
}

// NewCounter returns a counter with ONE allocated.
func NewCounter() *Counter {
	c := &Counter{density: newDensity(Capacity{})}
	c.AllocInput(fr.Element{})
	return c
}

func (c *Counter) Alloc(fr.Element) Variable {
	c.density.allocAux()
	c.sizes.NumAux++
	return Aux(c.sizes.NumAux - 1)
}

func (c *Counter) AllocInput(fr.Element) Variable {
	c.density.allocInput()
	c.sizes.NumInputs++
	return Input(c.sizes.NumInputs - 1)
}

func (c *Counter) Enforce(_ string, a, b, _ *LC) {
	c.sizes.NumConstraints++
	if a != nil {
		a.Canonicalize()
	}
	if b != nil {
		b.Canonicalize()
	}
	c.density.mark(deref(a), deref(b))
}

// Sizes returns the counts so far.
func (c *Counter) Sizes() Sizes { return c.sizes }

// Density returns the density bitmaps so far.
func (c *Counter) Density() *Density { return &c.density }

// Counts returns the sizes and density popcounts so far.
func (c *Counter) Counts() Counts { return c.density.Counts(c.sizes) }

func deref(lc *LC) LC {
	if lc == nil {
		return nil
	}
	return *lc
}
