package r1cs

// density tracks, per variable, whether it occurs with a non-zero coefficient in A or B.
// These bitmaps decide which points of the a, b_g1 and b_g2 parameter vectors exist
// (bellperson drops identity points), so they must match upstream exactly: aux in A,
// inputs in B, aux in B. Inputs are always dense in A because of the per-input rows.
type density struct {
	aAux, bInput, bAux Bitmap
}

func newDensity(c Capacity) density {
	return density{aAux: newBitmap(c.Aux), bInput: newBitmap(c.Inputs), bAux: newBitmap(c.Aux)}
}

func (d *density) allocInput() { d.bInput.Append(false) }

func (d *density) allocAux() {
	d.aAux.Append(false)
	d.bAux.Append(false)
}

// mark records the canonical terms of a row's A and B sides.
func (d *density) mark(a, b LC) {
	for i := range a {
		if a[i].Var.IsAux() {
			d.aAux.Set(a[i].Var.Index())
		}
	}
	for i := range b {
		if b[i].Var.IsAux() {
			d.bAux.Set(b[i].Var.Index())
		} else {
			d.bInput.Set(b[i].Var.Index())
		}
	}
}

// Counts is a system's size and the popcounts of its density bitmaps: the lengths of
// the a vector (NumInputs + AAux) and of b_g1/b_g2 (BInput + BAux) in its parameters.
type Counts struct {
	Sizes
	AAux, BInput, BAux int
}

func (d *density) counts(s Sizes) Counts {
	return Counts{Sizes: s, AAux: d.aAux.Count(), BInput: d.bInput.Count(), BAux: d.bAux.Count()}
}
