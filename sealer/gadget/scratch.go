package gadget

import (
	"sync"

	"github.com/snarkpipe/snarkpipe/prover/r1cs"
)

// ValuesOnlySystem is implemented by constraint systems that keep only the assignment
// and ignore rows: a witness filler whose A·z, B·z, C·z are computed later from a recorded
// shape. For such a system (ValuesOnly() == true) the gadgets skip building linear
// combinations and never call Enforce; allocation order and values are unchanged.
type ValuesOnlySystem interface {
	ValuesOnly() bool
}

// wantsRows reports whether cs needs rows.
func wantsRows(cs r1cs.ConstraintSystem) bool {
	v, ok := cs.(ValuesOnlySystem)
	return !ok || !v.ValuesOnly()
}

// rowScratch holds the three sides of one row. Gadgets take one from a pool for each row
// they emit so that, once the backing arrays have grown, emitting a row allocates nothing.
// Enforce may reorder the sides in place, which is harmless: they are reset before reuse.
type rowScratch struct{ a, b, c r1cs.LC }

var scratchPool = sync.Pool{New: func() any { return new(rowScratch) }}

// rowFor returns empty row sides to fill and pass to enforce, or nil when cs does not
// want rows (then the caller skips building them).
func rowFor(cs r1cs.ConstraintSystem) *rowScratch {
	if !wantsRows(cs) {
		return nil
	}
	return getScratch()
}

// enforce emits the row and returns s to the pool.
func (s *rowScratch) enforce(cs r1cs.ConstraintSystem, annotation string) {
	cs.Enforce(annotation, &s.a, &s.b, &s.c)
	putScratch(s)
}

func getScratch() *rowScratch { return scratchPool.Get().(*rowScratch) }

func putScratch(s *rowScratch) {
	s.a.Reset()
	s.b.Reset()
	s.c.Reset()
	scratchPool.Put(s)
}

// The values-only systems of prover/r1cs.
var (
	_ ValuesOnlySystem = (*r1cs.Assignment)(nil)
	_ ValuesOnlySystem = (*r1cs.Window)(nil)
)
