package r1cs

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"io"
	"math"
	"os"
	"path/filepath"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// A shape file persists a recorded Shape so that a restarted service does not record the
// circuit again (tens of seconds for a PoRep partition). Layout, all integers little-endian:
//
//	magic "SPSHAPE\x00" · version u32 · flags u32 (0)
//	NumInputs, NumAux, NumConstraints, len(Coeffs), nnz(A), nnz(B), nnz(C)  (u64 each)
//	Digest [32]byte
//	for A, B, C: RowPtr (Rows()+1 × u64) · Col (nnz × u32) · Coeff (nnz × u32)
//	Coeffs (len × 32-byte canonical big-endian field elements)
//	density words: AAux, BInput, BAux (⌈len/64⌉ × u64 each, unused high bits zero)
//	SHA-256 of every preceding byte
//
// The trailing checksum catches torn or corrupted files; Shape.Validate afterwards checks
// the structure and recomputes the R1CS digest, so a file that decodes is a usable shape.

// ShapeFileVersion is the current format version. Files of another version are refused
// with ErrShapeFileVersion (callers re-record).
const ShapeFileVersion = 1

var shapeFileMagic = [8]byte{'S', 'P', 'S', 'H', 'A', 'P', 'E', 0}

const shapeFileHeaderLen = 8 + 4 + 4 + 7*8 + 32

var (
	// ErrShapeFileVersion reports a shape file written by another format version.
	ErrShapeFileVersion = errors.New("r1cs: shape file has an unsupported format version")
	// ErrShapeFileCorrupt reports a shape file that is truncated, oversized, fails its
	// checksum or does not describe a consistent shape.
	ErrShapeFileCorrupt = errors.New("r1cs: shape file is corrupt")
)

// shapeFileHeader is the fixed-size part after the magic and version.
type shapeFileHeader struct {
	inputs, aux, constraints, coeffs uint64
	nnz                              [3]uint64
	digest                           [32]byte
}

// bodyLen returns the number of bytes between the header and the checksum, or an error
// when the counts cannot describe a file that fits in memory.
func (h *shapeFileHeader) bodyLen() (int64, error) {
	const limit = uint64(1) << 31 // MaxVariables; also bounds rows and coefficients
	if h.inputs == 0 || h.inputs > limit || h.aux > limit || h.constraints > limit || h.coeffs > limit {
		return 0, fmt.Errorf("%w: header sizes out of range", ErrShapeFileCorrupt)
	}
	rows := h.constraints + h.inputs
	total := 3*(rows+1)*8 + h.coeffs*32
	for _, n := range h.nnz {
		if n > 8*limit {
			return 0, fmt.Errorf("%w: header term count out of range", ErrShapeFileCorrupt)
		}
		total += n * 8
	}
	total += (2*((h.aux+63)/64) + (h.inputs+63)/64) * 8
	if total > math.MaxInt64/2 {
		return 0, fmt.Errorf("%w: header sizes out of range", ErrShapeFileCorrupt)
	}
	return int64(total), nil
}

// EncodedShapeLen is the size in bytes of s's shape file.
func EncodedShapeLen(s *Shape) int64 {
	h := headerOf(s)
	n, _ := h.bodyLen()
	return shapeFileHeaderLen + n + sha256.Size
}

func headerOf(s *Shape) shapeFileHeader {
	return shapeFileHeader{
		inputs: uint64(s.NumInputs), aux: uint64(s.NumAux), constraints: uint64(s.NumConstraints),
		coeffs: uint64(len(s.Coeffs)),
		nnz:    [3]uint64{uint64(len(s.A.Col)), uint64(len(s.B.Col)), uint64(len(s.C.Col))},
		digest: s.Digest,
	}
}

// EncodeShape writes s in the shape file format.
func EncodeShape(w io.Writer, s *Shape) error {
	bw := bufio.NewWriterSize(w, 1<<20)
	sum := sha256.New()
	out := &errWriter{w: io.MultiWriter(bw, sum)}
	h := headerOf(s)
	out.write(shapeFileMagic[:])
	out.u32(ShapeFileVersion)
	out.u32(0)
	for _, v := range []uint64{h.inputs, h.aux, h.constraints, h.coeffs, h.nnz[0], h.nnz[1], h.nnz[2]} {
		out.u64(v)
	}
	out.write(h.digest[:])
	for _, m := range []*Matrix{&s.A, &s.B, &s.C} {
		out.u64s(m.RowPtr)
		out.u32s(m.Col)
		out.u32s(m.Coeff)
	}
	for i := range s.Coeffs {
		b := s.Coeffs[i].Bytes()
		out.write(b[:])
	}
	for _, b := range []*Bitmap{&s.AAux, &s.BInput, &s.BAux} {
		out.u64s(b.Words)
	}
	if out.err != nil {
		return out.err
	}
	if _, err := bw.Write(sum.Sum(nil)); err != nil {
		return err
	}
	return bw.Flush()
}

// WriteShapeFile writes s to path atomically: a temporary file in the same directory is
// written, synced and renamed over path, so readers see the old file or the new one.
func WriteShapeFile(path string, s *Shape) (err error) {
	f, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("r1cs: shape file: %w", err)
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	if err = EncodeShape(f, s); err != nil {
		return fmt.Errorf("r1cs: writing shape file: %w", err)
	}
	if err = f.Sync(); err != nil {
		return fmt.Errorf("r1cs: shape file: %w", err)
	}
	if err = f.Close(); err != nil {
		return fmt.Errorf("r1cs: shape file: %w", err)
	}
	if err = os.Rename(f.Name(), path); err != nil {
		return fmt.Errorf("r1cs: shape file: %w", err)
	}
	return nil
}

// ReadShapeFile reads and validates a shape file.
func ReadShapeFile(path string) (*Shape, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	s, err := decodeShape(bufio.NewReaderSize(f, 1<<20), st.Size())
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}

// DecodeShape decodes and validates a shape file held in memory.
func DecodeShape(data []byte) (*Shape, error) {
	return decodeShape(bytes.NewReader(data), int64(len(data)))
}

// decodeShape reads a shape file of exactly size bytes from r. Nothing is allocated
// before the header's counts have been checked against size, so a corrupted header
// cannot make it allocate more than the file holds.
func decodeShape(r io.Reader, size int64) (*Shape, error) {
	sum := sha256.New()
	in := &hashReader{r: r, h: sum}
	var fixed [shapeFileHeaderLen]byte
	if err := in.full(fixed[:]); err != nil {
		return nil, fmt.Errorf("%w: truncated header", ErrShapeFileCorrupt)
	}
	if !bytes.Equal(fixed[:8], shapeFileMagic[:]) {
		return nil, fmt.Errorf("%w: bad magic", ErrShapeFileCorrupt)
	}
	if v := binary.LittleEndian.Uint32(fixed[8:]); v != ShapeFileVersion {
		return nil, fmt.Errorf("%w: version %d, want %d", ErrShapeFileVersion, v, ShapeFileVersion)
	}
	if binary.LittleEndian.Uint32(fixed[12:]) != 0 {
		return nil, fmt.Errorf("%w: unknown flags", ErrShapeFileCorrupt)
	}
	var h shapeFileHeader
	p := fixed[16:]
	for _, dst := range []*uint64{&h.inputs, &h.aux, &h.constraints, &h.coeffs, &h.nnz[0], &h.nnz[1], &h.nnz[2]} {
		*dst = binary.LittleEndian.Uint64(p)
		p = p[8:]
	}
	copy(h.digest[:], p)
	body, err := h.bodyLen()
	if err != nil {
		return nil, err
	}
	if size != shapeFileHeaderLen+body+sha256.Size {
		return nil, fmt.Errorf("%w: %d bytes, header describes %d", ErrShapeFileCorrupt, size, shapeFileHeaderLen+body+sha256.Size)
	}
	s, err := readShapeBody(in, &h)
	if err != nil {
		return nil, err
	}
	want := sum.Sum(nil)
	var got [sha256.Size]byte
	if _, err := io.ReadFull(r, got[:]); err != nil {
		return nil, fmt.Errorf("%w: truncated checksum", ErrShapeFileCorrupt)
	}
	if !bytes.Equal(got[:], want) {
		return nil, fmt.Errorf("%w: checksum mismatch", ErrShapeFileCorrupt)
	}
	if err := s.Validate(); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrShapeFileCorrupt, err)
	}
	// The evaluator adds and subtracts for the two fixed slots without reading them.
	var minusOne fr.Element
	minusOne.Neg(&frOne)
	if len(s.Coeffs) < 2 || s.Coeffs[coeffOneIdx] != frOne || s.Coeffs[coeffMinusOneIdx] != minusOne {
		return nil, fmt.Errorf("%w: coefficient table does not start with 1, -1", ErrShapeFileCorrupt)
	}
	return s, nil
}

func readShapeBody(in *hashReader, h *shapeFileHeader) (*Shape, error) {
	s := &Shape{Sizes: Sizes{NumInputs: int(h.inputs), NumAux: int(h.aux), NumConstraints: int(h.constraints)}, Digest: h.digest}
	rows := s.Rows()
	for k, m := range []*Matrix{&s.A, &s.B, &s.C} {
		m.RowPtr = make([]uint64, rows+1)
		m.Col = make([]uint32, h.nnz[k])
		m.Coeff = make([]uint32, h.nnz[k])
		in.u64s(m.RowPtr)
		in.u32s(m.Col)
		in.u32s(m.Coeff)
	}
	s.Coeffs = make([]fr.Element, h.coeffs)
	var b [fr.Bytes]byte
	for i := range s.Coeffs {
		in.readInto(b[:])
		if in.err == nil {
			if err := s.Coeffs[i].SetBytesCanonical(b[:]); err != nil {
				return nil, fmt.Errorf("%w: coefficient %d is not a canonical field element", ErrShapeFileCorrupt, i)
			}
		}
	}
	for _, bm := range []struct {
		dst *Bitmap
		n   int
	}{{&s.AAux, s.NumAux}, {&s.BInput, s.NumInputs}, {&s.BAux, s.NumAux}} {
		bm.dst.Len = bm.n
		bm.dst.Words = make([]uint64, (bm.n+63)/64)
		in.u64s(bm.dst.Words)
		if in.err == nil && bm.n%64 != 0 && bm.dst.Words[len(bm.dst.Words)-1]>>(bm.n%64) != 0 {
			return nil, fmt.Errorf("%w: density bitmap has bits past its length", ErrShapeFileCorrupt)
		}
	}
	if in.err != nil {
		return nil, fmt.Errorf("%w: truncated body", ErrShapeFileCorrupt)
	}
	return s, nil
}

// errWriter keeps the first write error so encoding reads as a straight sequence.
type errWriter struct {
	w   io.Writer
	err error
	buf [8 << 10]byte
}

func (e *errWriter) write(b []byte) {
	if e.err == nil {
		_, e.err = e.w.Write(b)
	}
}

func (e *errWriter) u32(v uint32) { e.write(binary.LittleEndian.AppendUint32(nil, v)) }
func (e *errWriter) u64(v uint64) { e.write(binary.LittleEndian.AppendUint64(nil, v)) }

func (e *errWriter) u64s(v []uint64) {
	for len(v) > 0 {
		n := min(len(v), len(e.buf)/8)
		for i := 0; i < n; i++ {
			binary.LittleEndian.PutUint64(e.buf[8*i:], v[i])
		}
		e.write(e.buf[:8*n])
		v = v[n:]
	}
}

func (e *errWriter) u32s(v []uint32) {
	for len(v) > 0 {
		n := min(len(v), len(e.buf)/4)
		for i := 0; i < n; i++ {
			binary.LittleEndian.PutUint32(e.buf[4*i:], v[i])
		}
		e.write(e.buf[:4*n])
		v = v[n:]
	}
}

// hashReader reads exact amounts, feeding everything read into h, and keeps the first
// error.
type hashReader struct {
	r   io.Reader
	h   hash.Hash
	err error
	buf [8 << 10]byte
}

func (in *hashReader) full(b []byte) error {
	if _, err := io.ReadFull(in.r, b); err != nil {
		return err
	}
	in.h.Write(b)
	return nil
}

func (in *hashReader) readInto(b []byte) {
	if in.err == nil {
		in.err = in.full(b)
	}
}

func (in *hashReader) u64s(v []uint64) {
	for len(v) > 0 && in.err == nil {
		n := min(len(v), len(in.buf)/8)
		in.readInto(in.buf[:8*n])
		for i := 0; i < n; i++ {
			v[i] = binary.LittleEndian.Uint64(in.buf[8*i:])
		}
		v = v[n:]
	}
}

func (in *hashReader) u32s(v []uint32) {
	for len(v) > 0 && in.err == nil {
		n := min(len(v), len(in.buf)/4)
		in.readInto(in.buf[:4*n])
		for i := 0; i < n; i++ {
			v[i] = binary.LittleEndian.Uint32(in.buf[4*i:])
		}
		v = v[n:]
	}
}
