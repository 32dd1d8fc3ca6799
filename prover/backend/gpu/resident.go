package gpu

import (
	"errors"
	"fmt"
	"math/bits"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/snarkpipe/snarkpipe/cuda"
	"github.com/snarkpipe/snarkpipe/prover/backend"
	"github.com/snarkpipe/snarkpipe/prover/r1cs"
)

var _ backend.ShapeEvaluator = (*Backend)(nil)

// residentShape is a recorded R1CS in device memory: the three CSR sides over one shared
// coefficient table, and the index lists into z that select the scalars of the a and
// b_g1/b_g2 parameter vectors (inputs always in a; density bitmaps for the rest).
type residentShape struct {
	b *Backend

	inputs, aux, rows, domain int
	sides                     [3]cuda.CSR
	host                      *hostSides // non-nil: the sides stream from host memory (hostshape.go)
	idxA, idxB                cuda.DevPtr
	nA, nB                    int
	chunks                    []streamChunk // a streamed proof's prefixes of aux (prove_streamed.go)

	mu         sync.Mutex
	allocs     []cuda.DevPtr // the shape's own arrays, freed on Close
	freed      bool
	shapeBytes uint64 // device bytes of allocs

	pool      proofPool     // under b.poolMu (pool.go)
	poolBytes atomic.Uint64 // pool.bytes, readable without b.poolMu

	// oneStream: a proof of this shape, or of an earlier shape of the same sizes, ran out
	// of device memory while its side stream was working (proveResident), so later
	// proofs of the shape keep to one stream rather than fail a first attempt each time.
	oneStream atomic.Bool
}

// shapeSizes are the sizes that set a resident shape's device memory per proof: its
// buffer set and the lengths of its five MSMs.
type shapeSizes struct{ inputs, aux, rows, domain, nA, nB int }

func (rs *residentShape) sizes() shapeSizes {
	return shapeSizes{rs.inputs, rs.aux, rs.rows, rs.domain, rs.nA, rs.nB}
}

// keepOneStream puts rs, and the shapes of its sizes loaded later, on one stream.
func (rs *residentShape) keepOneStream() {
	rs.oneStream.Store(true)
	rs.b.poolMu.Lock()
	rs.b.oneStream[rs.sizes()] = true
	rs.b.poolMu.Unlock()
}

// LoadShape uploads s (see backend.ShapeEvaluator). It checks every column and
// coefficient slot on the host first: the kernels index with them unchecked.
func (b *Backend) LoadShape(s *r1cs.Shape) (backend.ResidentShape, error) {
	if !b.lib.HasSparse() {
		return nil, wrap("load shape", fmt.Errorf("csr_eval: %w", cuda.ErrMissingSymbol))
	}
	if err := checkShape(s); err != nil {
		return nil, err
	}
	return b.loadShape(s, nil)
}

// loadShape uploads s, its sides too unless host holds them.
func (b *Backend) loadShape(s *r1cs.Shape, host *hostSides) (backend.ResidentShape, error) {
	idxA, idxB := densityIndices(s)
	rs := &residentShape{b: b, inputs: s.NumInputs, aux: s.NumAux, rows: s.Rows(), domain: s.DomainSize(),
		nA: len(idxA), nB: len(idxB), chunks: b.streamChunks(s), host: host}
	b.poolMu.Lock()
	b.shapes[rs] = struct{}{} // from here on Close unregisters it
	rs.oneStream.Store(b.oneStream[rs.sizes()])
	b.poolMu.Unlock()
	err := b.call(func(ctx cuda.Ctx) error {
		return b.retryOnOOM(ctx, rs, func() error { return rs.upload(ctx, s, idxA, idxB) })
	})
	if err != nil {
		_ = rs.Close()
		return nil, wrap("load shape", err)
	}
	return rs, nil
}

// upload copies the shape's arrays to the device under the held context. It first frees
// what an earlier, failed attempt left, so that a retry starts afresh; after a failure
// the arrays allocated so far stay in rs.allocs, for Close.
func (rs *residentShape) upload(ctx cuda.Ctx, s *r1cs.Shape, idxA, idxB []uint32) error {
	b := rs.b
	if err := rs.freeArrays(ctx); err != nil {
		return err
	}
	up := func(p unsafe.Pointer, bytes uint64) (cuda.DevPtr, error) {
		bytes = max(bytes, 1)
		d, err := b.devBuf(ctx, p, bytes)
		if err == nil {
			rs.mu.Lock()
			rs.allocs = append(rs.allocs, d)
			rs.shapeBytes += bytes
			rs.mu.Unlock()
		}
		return d, err
	}
	coeffs, err := up(unsafe.Pointer(&s.Coeffs[0]), uint64(len(s.Coeffs))*frBytes)
	if err != nil {
		return err
	}
	for i, m := range []*r1cs.Matrix{&s.A, &s.B, &s.C} {
		if rs.host != nil {
			rs.host.sides[i].Coeffs = coeffs
			continue
		}
		side := cuda.CSR{Coeffs: coeffs, Rows: uint64(rs.rows)}
		if side.RowPtr, err = up(unsafe.Pointer(&m.RowPtr[0]), uint64(len(m.RowPtr))*8); err != nil {
			return err
		}
		if side.Col, err = up(u32Ptr(m.Col), uint64(len(m.Col))*4); err != nil {
			return err
		}
		if side.Coeff, err = up(u32Ptr(m.Coeff), uint64(len(m.Coeff))*4); err != nil {
			return err
		}
		rs.sides[i] = side
	}
	if rs.idxA, err = up(u32Ptr(idxA), uint64(len(idxA))*4); err != nil {
		return err
	}
	rs.idxB, err = up(u32Ptr(idxB), uint64(len(idxB))*4)
	return err
}

// freeArrays frees the shape's own arrays on the held context and returns the first error.
func (rs *residentShape) freeArrays(ctx cuda.Ctx) error {
	rs.mu.Lock()
	allocs := rs.allocs
	rs.allocs, rs.shapeBytes = nil, 0
	rs.mu.Unlock()
	var first error
	for _, p := range allocs {
		if err := rs.b.free(ctx, p); err != nil && first == nil {
			first = err
		}
	}
	return first
}

func u32Ptr(v []uint32) unsafe.Pointer {
	if len(v) == 0 {
		return nil
	}
	return unsafe.Pointer(&v[0])
}

// checkShape verifies what the kernels rely on: CSR arrays of the right lengths with
// non-decreasing row pointers, columns inside z, slots inside the table, slots 0 and 1
// holding 1 and −1, and z addressable with 32-bit indices.
func checkShape(s *r1cs.Shape) error {
	rows, vars := s.Rows(), s.NumInputs+s.NumAux
	if s.NumInputs < 1 || uint64(vars) > 1<<32-1 {
		return fmt.Errorf("gpu backend: shape with %d inputs and %d variables cannot be evaluated", s.NumInputs, vars)
	}
	one, minusOne := fr.One(), fr.One()
	minusOne.Neg(&minusOne)
	if len(s.Coeffs) < 2 || !s.Coeffs[0].Equal(&one) || !s.Coeffs[1].Equal(&minusOne) {
		return errors.New("gpu backend: shape coefficient table must start with 1 and -1")
	}
	for name, m := range map[string]*r1cs.Matrix{"A": &s.A, "B": &s.B, "C": &s.C} {
		if len(m.RowPtr) != rows+1 || m.RowPtr[0] != 0 || m.RowPtr[rows] != uint64(len(m.Col)) || len(m.Coeff) != len(m.Col) {
			return fmt.Errorf("gpu backend: shape side %s: inconsistent CSR arrays", name)
		}
		for j := 0; j < rows; j++ {
			if m.RowPtr[j] > m.RowPtr[j+1] {
				return fmt.Errorf("gpu backend: shape side %s: row pointer %d decreases", name, j)
			}
		}
		for k := range m.Col {
			if int(m.Col[k]) >= vars || int(m.Coeff[k]) >= len(s.Coeffs) {
				return fmt.Errorf("gpu backend: shape side %s: term %d out of range", name, k)
			}
		}
	}
	if s.AAux.Len != s.NumAux || s.BAux.Len != s.NumAux || s.BInput.Len != s.NumInputs {
		return errors.New("gpu backend: shape density bitmaps do not match its sizes")
	}
	return nil
}

// densityIndices lists the z positions whose scalars the a and b parameter vectors take,
// in parameter order: every input then the aux variables in A; the inputs in B then the
// aux variables in B.
func densityIndices(s *r1cs.Shape) (a, b []uint32) {
	a = make([]uint32, 0, s.NumInputs+s.AAux.Count())
	b = make([]uint32, 0, s.BInput.Count()+s.BAux.Count())
	for i := 0; i < s.NumInputs; i++ {
		a = append(a, uint32(i))
		if s.BInput.Get(i) {
			b = append(b, uint32(i))
		}
	}
	for j := 0; j < s.NumAux; j++ {
		if s.AAux.Get(j) {
			a = append(a, uint32(s.NumInputs+j))
		}
		if s.BAux.Get(j) {
			b = append(b, uint32(s.NumInputs+j))
		}
	}
	return a, b
}

// Close frees the shape's device memory: its arrays and its proof pool.
func (rs *residentShape) Close() error {
	// rs.mu is released before waiting for the proofs in flight: a proof holds b.proofs
	// and then checks rs.freed under rs.mu, so the two never wait on each other.
	rs.mu.Lock()
	if rs.freed {
		rs.mu.Unlock()
		return nil
	}
	rs.freed = true
	rs.mu.Unlock()
	return rs.b.exclusive(func(ctx cuda.Ctx) error {
		rs.b.poolMu.Lock()
		delete(rs.b.shapes, rs)
		_, poolErr := rs.b.dropIdle(ctx, rs) // no proof is in flight: every set is idle
		rs.b.poolMu.Unlock()
		err := errors.Join(rs.freeArrays(ctx), poolErr)
		if rs.host != nil {
			err = errors.Join(err, rs.b.releaseHost(rs.host.vec))
		}
		return wrap("free shape", err)
	})
}

// DeviceBytes is the device memory the shape holds now: its arrays (CSR sides,
// coefficient table, density index lists) and, once it has proved, its proof pool
// (a set of z and the three domain vectors per proof that ran at once, see
// ProofPoolBytes), which it keeps until Close or a trim. The library's MSM and NTT scratch, taken and returned within each proof, is not
// included.
func (rs *residentShape) DeviceBytes() uint64 {
	rs.mu.Lock()
	shape := rs.shapeBytes
	rs.mu.Unlock()
	return shape + rs.poolBytes.Load()
}

func (b *Backend) resident(s backend.ResidentShape) (*residentShape, error) {
	rs, ok := s.(*residentShape)
	if !ok || rs.b != b {
		return nil, errors.New("gpu backend: shape was not loaded by this backend")
	}
	return rs, nil
}

// open reports whether the shape is still loaded; callers hold b.proofs shared, so a
// concurrent Close cannot free it until they return.
func (rs *residentShape) open() error {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if rs.freed {
		return backend.ErrClosed
	}
	return nil
}

func lg2(n int) uint32 { return uint32(bits.TrailingZeros(uint(n))) }
