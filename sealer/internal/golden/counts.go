package golden

import (
	"fmt"

	"github.com/snarkpipe/snarkpipe/prover"
	"github.com/snarkpipe/snarkpipe/prover/r1cs"
)

// Counts are a circuit's counts: sizes, density popcounts and non-zero terms per side,
// A including bellperson's per-input rows (so that they compare with cuzk's recordings).
type Counts struct {
	r1cs.Counts
	NonZerosA, NonZerosB, NonZerosC int
}

// Line is the golden-file line of circuit name.
func (c Counts) Line(name string) string {
	return fmt.Sprintf("%s rows=%d inputs=%d aux=%d a_aux=%d b_input=%d b_aux=%d nnz_a=%d nnz_b=%d nnz_c=%d",
		name, c.NumConstraints, c.NumInputs, c.NumAux, c.AAux, c.BInput, c.BAux, c.NonZerosA, c.NonZerosB, c.NonZerosC)
}

// Count synthesizes c into a Counter, which stores only sizes and density bitmaps (a
// 32 GiB circuit needs well under 2 GiB), and also counts each side's terms.
func Count(c prover.Circuit) (Counts, error) {
	cs := &nnzCounter{Counter: r1cs.NewCounter()}
	if err := c.Synthesize(cs); err != nil {
		return Counts{}, err
	}
	n := cs.Counts()
	return Counts{Counts: n, NonZerosA: cs.a + n.NumInputs, NonZerosB: cs.b, NonZerosC: cs.c}, nil
}

// nnzCounter is a Counter that also counts the non-zero terms of each side after
// canonicalization (merged variables, zero coefficients dropped: bellperson's form).
type nnzCounter struct {
	*r1cs.Counter
	a, b, c int
}

func (n *nnzCounter) Enforce(ann string, a, b, c *r1cs.LC) {
	if c != nil {
		c.Canonicalize()
		n.c += len(*c)
	}
	n.Counter.Enforce(ann, a, b, c) // canonicalizes a and b
	if a != nil {
		n.a += len(*a)
	}
	if b != nil {
		n.b += len(*b)
	}
}
