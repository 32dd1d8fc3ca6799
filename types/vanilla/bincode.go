package vanilla

import (
	"encoding/binary"
	"fmt"
)

// binReader reads bincode 1.x (little-endian fixed-width integers, u64 lengths, u32 enum tags).
type binReader struct {
	buf  []byte
	pos  int
	path string
	err  error
}

func (r *binReader) fail(kind error, format string, args ...any) {
	if r.err == nil {
		r.err = &DecodeError{Offset: r.pos, Path: r.path, Err: kind, Msg: fmt.Sprintf(format, args...)}
	}
}

func (r *binReader) take(n int) []byte {
	if r.err != nil {
		return nil
	}
	if len(r.buf)-r.pos < n {
		r.fail(ErrMalformed, "truncated: need %d bytes, have %d", n, len(r.buf)-r.pos)
		return nil
	}
	b := r.buf[r.pos : r.pos+n]
	r.pos += n
	return b
}

func (r *binReader) u32() uint32 {
	if b := r.take(4); b != nil {
		return binary.LittleEndian.Uint32(b)
	}
	return 0
}

func (r *binReader) u64() uint64 {
	if b := r.take(8); b != nil {
		return binary.LittleEndian.Uint64(b)
	}
	return 0
}

func (r *binReader) domain() (d Domain) {
	if b := r.take(32); b != nil {
		copy(d[:], b)
	}
	return d
}

// length reads a Vec length and checks it against max and against the bytes left, given that
// each element takes at least minElem bytes: a forged length fails before any allocation.
func (r *binReader) length(max, minElem int) int {
	n := r.u64()
	if r.err != nil {
		return 0
	}
	if n > uint64(max) {
		r.fail(ErrLimit, "length %d exceeds %d", n, max)
		return 0
	}
	if left := uint64(len(r.buf) - r.pos); n*uint64(minElem) > left {
		r.fail(ErrMalformed, "length %d needs at least %d bytes, have %d", n, n*uint64(minElem), left)
		return 0
	}
	return int(n)
}

func (r *binReader) domains(max int) []Domain {
	n := r.length(max, 32)
	if r.err != nil {
		return nil
	}
	out := make([]Domain, n)
	for i := range out {
		out[i] = r.domain()
	}
	return out
}

// Minimum encoded sizes, used to bound lengths by the remaining input.
const (
	minPathElementSize = 8 + 8        // empty hashes vec + index
	minMerkleProofSize = 4 + 8 + 2*32 // Single: tag, empty path, root, leaf
	minSectorProofSize = 8 + 2*32     // empty inclusion proofs, comm_c, comm_r_last
	minPoStProofSize   = 8 + 32 + 8   // sector id, comm_r, empty sectors vec
	maxPathIndex       = 1<<63 - 1    // usize index, as read by 64-bit upstream
)

func (r *binReader) inclusionPath(lim *Limits) []PathElement {
	n := r.length(lim.PathElements, minPathElementSize)
	if r.err != nil {
		return nil
	}
	out := make([]PathElement, n)
	for i := range out {
		out[i].Hashes = r.domains(lim.PathHashes)
		out[i].Index = r.u64()
		if out[i].Index > maxPathIndex {
			r.fail(ErrMalformed, "path index %d out of range", out[i].Index)
		}
	}
	return out
}

func (r *binReader) merkleProof(lim *Limits) (p MerkleProof) {
	tag := r.u32()
	if r.err != nil {
		return p
	}
	if tag > uint32(ProofTop) {
		r.fail(ErrMalformed, "unknown merkle proof variant %d", tag)
		return p
	}
	p.Kind = ProofKind(tag)
	if p.Kind == ProofSingle {
		p.Root = r.domain()
		p.Leaf = r.domain()
		p.Base = r.inclusionPath(lim)
		return p
	}
	p.Base = r.inclusionPath(lim)
	p.Sub = r.inclusionPath(lim)
	if p.Kind == ProofTop {
		p.Top = r.inclusionPath(lim)
	}
	p.Root = r.domain()
	p.Leaf = r.domain()
	return p
}

func appendU32(b []byte, v uint32) []byte { return binary.LittleEndian.AppendUint32(b, v) }
func appendU64(b []byte, v uint64) []byte { return binary.LittleEndian.AppendUint64(b, v) }

func appendBinPath(b []byte, path []PathElement) []byte {
	b = appendU64(b, uint64(len(path)))
	for _, e := range path {
		b = appendU64(b, uint64(len(e.Hashes)))
		for i := range e.Hashes {
			b = append(b, e.Hashes[i][:]...)
		}
		b = appendU64(b, e.Index)
	}
	return b
}

func appendBinMerkleProof(b []byte, p *MerkleProof) []byte {
	b = appendU32(b, uint32(p.Kind))
	if p.Kind == ProofSingle {
		b = append(b, p.Root[:]...)
		b = append(b, p.Leaf[:]...)
		return appendBinPath(b, p.Base)
	}
	b = appendBinPath(b, p.Base)
	b = appendBinPath(b, p.Sub)
	if p.Kind == ProofTop {
		b = appendBinPath(b, p.Top)
	}
	b = append(b, p.Root[:]...)
	return append(b, p.Leaf[:]...)
}
