package r1cs

import "github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

// ConstraintSystem is what circuits synthesize into. Values are always passed; systems
// that only need the shape (Recorder, Counter) ignore them, so a circuit has one code path.
//
// Implementations allocate ONE (input 0) at construction.
type ConstraintSystem interface {
	// Alloc appends an aux variable with the given value.
	Alloc(value fr.Element) Variable
	// AllocInput appends a public input with the given value.
	AllocInput(value fr.Element) Variable
	// Enforce appends the row a·b = c. The system may reorder or merge the terms of
	// a, b and c in place (see LC.Canonicalize); callers reset them before reuse.
	// A nil side is the empty combination. annotation names the row for error
	// reports; it never affects the system.
	Enforce(annotation string, a, b, c *LC)
	// Push and Pop maintain a namespace path used only in error reports.
	Push(namespace string)
	Pop()
}

// Sizes describes a synthesized system.
type Sizes struct {
	NumInputs      int // ONE included
	NumAux         int
	NumConstraints int // circuit rows, without the per-input rows
}

// Rows is the number of QAP rows: circuit rows plus one row per input.
func (s Sizes) Rows() int { return s.NumConstraints + s.NumInputs }

// DomainSize is the smallest power of two ≥ Rows (bellperson's m).
func (s Sizes) DomainSize() int {
	m := 1
	for m < s.Rows() {
		m <<= 1
	}
	return m
}

// Capacity pre-sizes a system's buffers. Zero fields mean "unknown".
type Capacity struct {
	Inputs, Aux, Constraints int
	// NonZeros is the expected number of terms over A, B and C together.
	NonZeros int
	// MatrixNonZeros is the expected number of terms of A, B and C each; a non-zero
	// entry overrides that matrix's third of NonZeros (the matrices differ in size:
	// in Filecoin's circuits B has less than half the terms of A).
	MatrixNonZeros [3]int
}

// matrixNonZeros is the expected number of terms of matrix i (0: A, 1: B, 2: C).
func (c Capacity) matrixNonZeros(i int) int {
	if n := c.MatrixNonZeros[i]; n > 0 {
		return n
	}
	return c.NonZeros / 3
}

// namespaces keeps the current namespace path for error reports.
type namespaces struct{ path []string }

func (n *namespaces) Push(name string) { n.path = append(n.path, name) }

func (n *namespaces) Pop() {
	if len(n.path) > 0 {
		n.path = n.path[:len(n.path)-1]
	}
}

func (n *namespaces) qualify(annotation string) string {
	s := ""
	for _, p := range n.path {
		s += p + "/"
	}
	return s + annotation
}
