package r1cs

// Density tells, per variable, whether it occurs with a non-zero coefficient in A or B.
// These bitmaps decide which points of the a, b_g1 and b_g2 parameter vectors exist
// (bellperson drops identity points), and so how the prover walks them; they must match
// upstream exactly. Inputs are always dense in A because of the per-input rows, so only
// aux variables are tracked for A.
type Density struct {
	AAux   Bitmap // aux variables with a non-zero A coefficient somewhere
	BInput Bitmap // inputs with a non-zero B coefficient somewhere
	BAux   Bitmap // aux variables with a non-zero B coefficient somewhere
}

func newDensity(c Capacity) Density {
	return Density{AAux: newBitmap(c.Aux), BInput: newBitmap(c.Inputs), BAux: newBitmap(c.Aux)}
}

func (d *Density) allocInput() { d.BInput.Append(false) }

func (d *Density) allocAux() {
	d.AAux.Append(false)
	d.BAux.Append(false)
}

// mark records the canonical terms of a row's A and B sides.
func (d *Density) mark(a, b LC) {
	for i := range a {
		if a[i].Var.IsAux() {
			d.AAux.Set(a[i].Var.Index())
		}
	}
	for i := range b {
		if b[i].Var.IsAux() {
			d.BAux.Set(b[i].Var.Index())
		} else {
			d.BInput.Set(b[i].Var.Index())
		}
	}
}

// Counts is a system's size and the popcounts of its density bitmaps: the lengths of
// the a vector (NumInputs + AAux) and of b_g1/b_g2 (BInput + BAux) in its parameters.
type Counts struct {
	Sizes
	AAux, BInput, BAux int
}

// Counts returns s with the popcounts of d.
func (d *Density) Counts(s Sizes) Counts {
	return Counts{Sizes: s, AAux: d.AAux.Count(), BInput: d.BInput.Count(), BAux: d.BAux.Count()}
}
