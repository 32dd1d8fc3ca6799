package gpu

import (
	"errors"
	"fmt"
	"unsafe"

	"github.com/snarkpipe/snarkpipe/cuda"
	"github.com/snarkpipe/snarkpipe/prover/backend"
	"github.com/snarkpipe/snarkpipe/prover/r1cs"
)

// Streamed shapes (the memory tiers, backend.ShapeStreamer): the three CSR sides of a
// recorded circuit (9–10 GiB at 32 GiB PoRep) stay in page-locked host memory and A·z,
// B·z, C·z copy them to the device in chunks of rows, the next chunk's copy overlapping
// this chunk's products (cuda.Lib.CSREvalHost). The coefficient table and the density
// index lists stay on the device; so do the proof buffers.

var _ backend.ShapeStreamer = (*Backend)(nil)

// defaultSideChunkTerms is the terms per chunk of a streamed side: 2^25 terms copy as
// 256 MiB of columns and slots per buffer set (two sets), a few per side at 32 GiB.
const defaultSideChunkTerms = 1 << 25

// hostSides is the host copy of a shape's three sides: one mapping holding, per side,
// its row pointers, columns and coefficient slots.
type hostSides struct {
	vec   *hostVector
	sides [3]cuda.CSRHost // Coeffs set on upload
}

// LoadShapeStreamed is LoadShape with the CSR sides kept in page-locked host memory.
func (b *Backend) LoadShapeStreamed(s *r1cs.Shape) (backend.ResidentShape, error) {
	if !b.lib.HasHostCSR() {
		return nil, wrap("load streamed shape", fmt.Errorf("csr_eval_host: %w", cuda.ErrMissingSymbol))
	}
	if err := checkShape(s); err != nil {
		return nil, err
	}
	hs, err := b.newHostSides(s)
	if err != nil {
		return nil, wrap("load streamed shape", err)
	}
	rs, err := b.loadShape(s, hs)
	if err != nil {
		return nil, errors.Join(err, b.releaseHost(hs.vec))
	}
	return rs, nil
}

// ShapeStreamable reports whether the library can evaluate sides from host memory.
func (b *Backend) ShapeStreamable() bool { return b.lib.HasHostCSR() }

// newHostSides copies s's sides into one page-locked mapping.
func (b *Backend) newHostSides(s *r1cs.Shape) (*hostSides, error) {
	mats := []*r1cs.Matrix{&s.A, &s.B, &s.C}
	var total uint64
	for _, m := range mats {
		total += uint64(len(m.RowPtr))*8 + uint64(len(m.Col))*4 + uint64(len(m.Coeff))*4
	}
	hs := &hostSides{}
	vec, err := b.newHostVector(total, func(dst unsafe.Pointer) error {
		off := uintptr(0)
		put := func(src unsafe.Pointer, n uint64) unsafe.Pointer {
			p := unsafe.Add(dst, off)
			if n > 0 {
				copy(unsafe.Slice((*byte)(p), n), unsafe.Slice((*byte)(src), n))
			}
			off += uintptr(n)
			return p
		}
		for i, m := range mats {
			hs.sides[i] = cuda.CSRHost{
				RowPtr: put(unsafe.Pointer(unsafe.SliceData(m.RowPtr)), uint64(len(m.RowPtr))*8),
				Col:    put(unsafe.Pointer(unsafe.SliceData(m.Col)), uint64(len(m.Col))*4),
				Coeff:  put(unsafe.Pointer(unsafe.SliceData(m.Coeff)), uint64(len(m.Coeff))*4),
				Rows:   uint64(s.Rows()),
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	hs.vec = vec
	return hs, nil
}

// evalSide computes out = side i times z, from the device or from host memory.
func (rs *residentShape) evalSide(ctx cuda.Ctx, i int, z, out cuda.DevPtr) error {
	b := rs.b
	if rs.host != nil {
		chunk := b.sideChunk
		if chunk == 0 {
			chunk = defaultSideChunkTerms
		}
		return b.lib.CSREvalHost(ctx, rs.host.sides[i], z, out, uint64(rs.domain), chunk)
	}
	return b.lib.CSREval(ctx, rs.sides[i], z, out, uint64(rs.domain))
}

// HostBytes is the page-locked host memory a streamed shape holds (0 when resident).
func (rs *residentShape) HostBytes() uint64 {
	if rs.host == nil {
		return 0
	}
	return uint64(len(rs.host.vec.mem))
}
