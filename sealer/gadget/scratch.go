package gadget

import (
	"sync"

	"github.com/snarkpipe/snarkpipe/prover/r1cs"
)

// rowScratch holds the three sides of one row. Gadgets take one from a pool for each row
// they emit so that, once the backing arrays have grown, emitting a row allocates nothing.
// Enforce may reorder the sides in place, which is harmless: they are reset before reuse.
type rowScratch struct{ a, b, c r1cs.LC }

var scratchPool = sync.Pool{New: func() any { return new(rowScratch) }}

func getScratch() *rowScratch { return scratchPool.Get().(*rowScratch) }

func putScratch(s *rowScratch) {
	s.a.Reset()
	s.b.Reset()
	s.c.Reset()
	scratchPool.Put(s)
}
