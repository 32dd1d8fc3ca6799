package groth16

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"sync"
	"sync/atomic"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fp"
)

// Sizes of bellperson's uncompressed point encodings and of the fixed verifying-key prefix
// (spec groth16-gpu.md §1.1–1.3).
const (
	g1RawSize = 96
	g2RawSize = 192
	// vkFixedSize covers alpha_g1, beta_g1, beta_g2, gamma_g2, delta_g1, delta_g2.
	vkFixedSize = 3*g1RawSize + 3*g2RawSize // 864 bytes
	countSize   = 4
)

// Errors wrapped by *FormatError (test with errors.Is).
var (
	ErrTruncated       = errors.New("truncated")
	ErrTrailingBytes   = errors.New("unexpected trailing bytes")
	ErrIdentity        = errors.New("point at infinity is not allowed")
	ErrInvalidEncoding = errors.New("invalid point encoding")
	ErrNonCanonical    = errors.New("coordinate is not below the field modulus")
	ErrNotOnCurve      = errors.New("point is not on the curve")
	ErrNotInSubgroup   = errors.New("point is not in the prime-order subgroup")
)

// ErrDevParams is returned by ReadParams for parameters written by a dev setup when
// ReadOptions.AllowDev is false: their toxic waste is known, proofs made with them prove
// nothing.
var ErrDevParams = errors.New("groth16: dev parameters (known toxic waste) refused: ReadOptions.AllowDev is false")

// FormatError reports malformed parameter, verifying-key or proof bytes. Vector names the
// field as bellperson does ("alpha_g1", …, "ic", "h", "l", "a", "b_g1", "b_g2", "trailer";
// "proof.a", "proof.b", "proof.c" for proofs).
type FormatError struct {
	Vector string
	Index  int   // point index within Vector; -1 when the problem is the vector's length field
	Offset int64 // byte offset of the point or length field in the input
	Err    error
}

func (e *FormatError) Error() string {
	if e.Index < 0 {
		return fmt.Sprintf("groth16: %s (length at byte %d): %v", e.Vector, e.Offset, e.Err)
	}
	return fmt.Sprintf("groth16: %s[%d] (at byte %d): %v", e.Vector, e.Index, e.Offset, e.Err)
}

func (e *FormatError) Unwrap() error { return e.Err }

// ReadOptions tunes ReadParams. The zero value reads official parameters the way
// bellperson's mapped prover does: every coordinate canonical and every point on the
// curve, not the point at infinity, no subgroup check for the proving-key vectors.
type ReadOptions struct {
	// SubgroupCheck also checks subgroup membership of every proving-key point (slow even
	// batched, see batchSubgroupMin). Verifying-key points are always checked, one by one.
	SubgroupCheck bool
	// AllowDev accepts parameters written by a dev setup (Params.Dev = true).
	AllowDev bool
	// ExpectDigest, when non-empty, is the parameters.json "digest" (first 32 hex
	// characters of the file's BLAKE2b-512); a mismatch fails the read.
	ExpectDigest string
	// Workers is the number of decoding goroutines; 0 means runtime.NumCPU().
	Workers int
	// Progress, when set, is called from the decoding goroutines (concurrently) with the
	// proving-key points decoded so far and their total, after each chunk.
	Progress func(done, total int64)
}

// ReadParams reads a bellperson .params file. The file is mapped read-only and decoded in
// parallel straight into the destination vectors, so no second copy of it is made. The
// file must not be truncated while it is read (a mapped page past the new end would fault).
func ReadParams(path string, opts ReadOptions) (*Params, error) {
	data, release, err := mapFileReadOnly(path)
	if err != nil {
		return nil, fmt.Errorf("groth16: read params: %w", err)
	}
	p, err := ParseParams(data, opts)
	if relErr := release(); relErr != nil && err == nil {
		err = relErr
	}
	if err != nil {
		if p != nil {
			p.Close()
		}
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return p, nil
}

// ParseParams decodes a whole parameter file held in memory (see ReadParams).
func ParseParams(data []byte, opts ReadOptions) (*Params, error) {
	if opts.ExpectDigest != "" && !isDigestString(opts.ExpectDigest) {
		return nil, fmt.Errorf("groth16: ExpectDigest %q is not %d hex characters", opts.ExpectDigest, DigestLen)
	}
	lay, err := scanParamsLayout(data)
	if err != nil {
		return nil, err
	}
	if lay.dev && !opts.AllowDev {
		return nil, ErrDevParams
	}
	var checks sync.WaitGroup
	var digestErr, trailerErr error
	var decodeFailed atomic.Bool
	if opts.ExpectDigest != "" {
		checks.Go(func() { digestErr = checkDigest(data, opts.ExpectDigest) })
	}
	if lay.dev {
		checks.Go(func() { trailerErr = checkDevTrailer(data[:lay.end], data[lay.end:], &decodeFailed) })
	}
	p, err := decodeParams(data, &lay, opts)
	decodeFailed.Store(err != nil)
	checks.Wait()
	if err == nil {
		err = errors.Join(digestErr, trailerErr)
	}
	if err != nil {
		p.Close()
		return nil, err
	}
	return p, nil
}

// decodeParams decodes the points of a file whose layout has been validated. It always
// returns a non-nil Params so that the caller can Close whatever was allocated.
func decodeParams(data []byte, lay *paramsLayout, opts ReadOptions) (*Params, error) {
	p := &Params{Dev: lay.dev}
	vk, err := decodeVerifyingKey(data, &lay.vk)
	if err != nil {
		return p, err
	}
	p.VK = vk
	if p.H, err = allocG1For(p, lay.h); err != nil {
		return p, err
	}
	if p.L, err = allocG1For(p, lay.l); err != nil {
		return p, err
	}
	if p.A, err = allocG1For(p, lay.a); err != nil {
		return p, err
	}
	if p.BG1, err = allocG1For(p, lay.bG1); err != nil {
		return p, err
	}
	bg2, blk, err := allocVector[bls.G2Affine](lay.bG2.count)
	if err != nil {
		return p, err
	}
	p.offheap = append(p.offheap, blk)
	p.BG2 = bg2
	jobs := []decodeJob{
		g1Job(data, lay.h, p.H), g1Job(data, lay.l, p.L), g1Job(data, lay.a, p.A),
		g1Job(data, lay.bG1, p.BG1), g2Job(data, lay.bG2, p.BG2),
	}
	mode := subgroupNone
	if opts.SubgroupCheck {
		mode = subgroupBatch
	}
	return p, decodeParallel(jobs, mode, opts.Workers, opts.Progress)
}

func allocG1For(p *Params, s vectorSpan) ([]bls.G1Affine, error) {
	v, blk, err := allocVector[bls.G1Affine](s.count)
	if err != nil {
		return nil, err
	}
	p.offheap = append(p.offheap, blk)
	return v, nil
}

// ReadVerifyingKey reads a verifying key from r and stops right after the last IC point,
// so it also reads the verifying-key prefix of a .params stream. All points are subgroup
// checked, as rust-fil-proofs does for .vk files. Memory grows only with the bytes that
// actually arrive, whatever the IC count claims.
func ReadVerifyingKey(r io.Reader) (*VerifyingKey, error) {
	buf := make([]byte, vkFixedSize+countSize)
	if n, err := io.ReadFull(r, buf); err != nil {
		return nil, readVKFailure(buf[:n], err)
	}
	count := int(binary.BigEndian.Uint32(buf[vkFixedSize:]))
	const chunk = 4096 * g1RawSize
	for remaining := count * g1RawSize; remaining > 0; {
		step := min(remaining, chunk)
		start := len(buf)
		buf = append(buf, make([]byte, step)...)
		if n, err := io.ReadFull(r, buf[start:]); err != nil {
			return nil, readVKFailure(buf[:start+n], err)
		}
		remaining -= step
	}
	return ParseVerifyingKey(buf)
}

// readVKFailure turns a short read into the FormatError naming the truncated field.
func readVKFailure(got []byte, err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		if _, perr := ParseVerifyingKey(got); perr != nil {
			return perr
		}
	}
	return fmt.Errorf("groth16: read verifying key: %w", err)
}

// ReadVerifyingKeyFile reads a .vk file; bytes after the IC vector are an error.
func ReadVerifyingKeyFile(path string) (*VerifyingKey, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("groth16: read verifying key: %w", err)
	}
	vk, err := ParseVerifyingKey(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return vk, nil
}

// ParseVerifyingKey decodes exactly one verifying key (the whole of b) with subgroup checks.
func ParseVerifyingKey(b []byte) (*VerifyingKey, error) {
	var lay vkLayout
	off, err := scanVKLayout(b, &lay)
	if err != nil {
		return nil, err
	}
	if off != len(b) {
		return nil, &FormatError{Vector: "trailer", Index: -1, Offset: int64(off),
			Err: fmt.Errorf("%w: %d bytes after the verifying key", ErrTrailingBytes, len(b)-off)}
	}
	vk, err := decodeVerifyingKey(b, &lay)
	if err != nil {
		return nil, err
	}
	return &vk, nil
}

// vectorSpan locates one vector in the input: count points starting at byte offset.
type vectorSpan struct {
	name   string
	count  int
	offset int
}

type vkLayout struct {
	ic vectorSpan
}

type paramsLayout struct {
	vk                vkLayout
	h, l, a, bG1, bG2 vectorSpan
	end               int  // end of b_g2: start of the dev trailer, if any
	dev               bool // a well-formed dev trailer follows (its hash is checked later)
}

// vkFixedPoints names the six fixed points of a verifying key, in file order.
var vkFixedPoints = [...]struct {
	name string
	size int
}{
	{"alpha_g1", g1RawSize}, {"beta_g1", g1RawSize}, {"beta_g2", g2RawSize},
	{"gamma_g2", g2RawSize}, {"delta_g1", g1RawSize}, {"delta_g2", g2RawSize},
}

// scanVKLayout checks that b holds a complete verifying key prefix and returns its length.
func scanVKLayout(b []byte, lay *vkLayout) (int, error) {
	off := 0
	for _, f := range vkFixedPoints {
		if len(b)-off < f.size {
			return 0, &FormatError{Vector: f.name, Index: 0, Offset: int64(off),
				Err: fmt.Errorf("%w: need %d bytes, %d remain", ErrTruncated, f.size, len(b)-off)}
		}
		off += f.size
	}
	var err error
	lay.ic, off, err = scanVector(b, off, "ic", g1RawSize)
	return off, err
}

// scanParamsLayout walks the length fields of a whole parameter file, checking every
// declared length against the bytes that remain, before anything is allocated.
func scanParamsLayout(b []byte) (paramsLayout, error) {
	var lay paramsLayout
	off, err := scanVKLayout(b, &lay.vk)
	if err != nil {
		return lay, err
	}
	for _, v := range []struct {
		span *vectorSpan
		name string
		size int
	}{
		{&lay.h, "h", g1RawSize}, {&lay.l, "l", g1RawSize}, {&lay.a, "a", g1RawSize},
		{&lay.bG1, "b_g1", g1RawSize}, {&lay.bG2, "b_g2", g2RawSize},
	} {
		if *v.span, off, err = scanVector(b, off, v.name, v.size); err != nil {
			return lay, err
		}
	}
	lay.end = off
	lay.dev, err = scanDevTrailer(b[off:], off)
	return lay, err
}

func scanVector(b []byte, off int, name string, pointSize int) (vectorSpan, int, error) {
	if len(b)-off < countSize {
		return vectorSpan{}, 0, &FormatError{Vector: name, Index: -1, Offset: int64(off),
			Err: fmt.Errorf("%w: no length field", ErrTruncated)}
	}
	count := uint64(binary.BigEndian.Uint32(b[off:]))
	remain := uint64(len(b) - off - countSize)
	if count*uint64(pointSize) > remain {
		return vectorSpan{}, 0, &FormatError{Vector: name, Index: -1, Offset: int64(off),
			Err: fmt.Errorf("%w: declares %d points (%d bytes), %d bytes remain",
				ErrTruncated, count, count*uint64(pointSize), remain)}
	}
	s := vectorSpan{name: name, count: int(count), offset: off + countSize}
	return s, s.offset + s.count*pointSize, nil
}

// decodeVerifyingKey decodes the points of a validated verifying-key layout, with
// subgroup checks for every point.
func decodeVerifyingKey(b []byte, lay *vkLayout) (VerifyingKey, error) {
	var vk VerifyingKey
	g1s := []*bls.G1Affine{&vk.AlphaG1, &vk.BetaG1, nil, nil, &vk.DeltaG1, nil}
	g2s := []*bls.G2Affine{nil, nil, &vk.BetaG2, &vk.GammaG2, nil, &vk.DeltaG2}
	off := 0
	for i, f := range vkFixedPoints {
		var err error
		if g1s[i] != nil {
			err = decodeG1Raw(g1s[i], (*[g1RawSize]byte)(b[off:]), true)
		} else {
			err = decodeG2Raw(g2s[i], (*[g2RawSize]byte)(b[off:]), true)
		}
		if err != nil {
			return vk, &FormatError{Vector: f.name, Index: 0, Offset: int64(off), Err: err}
		}
		off += f.size
	}
	vk.IC = make([]bls.G1Affine, lay.ic.count)
	err := decodeParallel([]decodeJob{g1Job(b, lay.ic, vk.IC)}, subgroupEach, 0, nil)
	return vk, err
}

// decodeG1Raw decodes a 96-byte uncompressed G1 point the way blst's deserializer does
// (canonical coordinates, on the curve), rejecting the point at infinity as bellperson's
// readers do. Unlike blst, a compressed-flag point is rejected instead of being decoded
// from its first 48 bytes: official files never contain one.
func decodeG1Raw(dst *bls.G1Affine, src *[g1RawSize]byte, subgroup bool) error {
	if err := checkRawFlags(src[0], src[1:]); err != nil {
		return err
	}
	x, errX := fp.BigEndian.Element((*[fp.Bytes]byte)(src[0:]))
	y, errY := fp.BigEndian.Element((*[fp.Bytes]byte)(src[fp.Bytes:]))
	if errX != nil || errY != nil {
		return ErrNonCanonical
	}
	p := bls.G1Affine{X: x, Y: y}
	if err := checkPoint(p.IsInfinity(), p.IsOnCurve, subgroup, p.IsInSubGroup); err != nil {
		return err
	}
	*dst = p
	return nil
}

// decodeG2Raw is decodeG1Raw for G2: X.c1 ‖ X.c0 ‖ Y.c1 ‖ Y.c0, imaginary parts first.
func decodeG2Raw(dst *bls.G2Affine, src *[g2RawSize]byte, subgroup bool) error {
	if err := checkRawFlags(src[0], src[1:]); err != nil {
		return err
	}
	var p bls.G2Affine
	var errs [4]error
	p.X.A1, errs[0] = fp.BigEndian.Element((*[fp.Bytes]byte)(src[0:]))
	p.X.A0, errs[1] = fp.BigEndian.Element((*[fp.Bytes]byte)(src[fp.Bytes:]))
	p.Y.A1, errs[2] = fp.BigEndian.Element((*[fp.Bytes]byte)(src[2*fp.Bytes:]))
	p.Y.A0, errs[3] = fp.BigEndian.Element((*[fp.Bytes]byte)(src[3*fp.Bytes:]))
	if errs[0] != nil || errs[1] != nil || errs[2] != nil || errs[3] != nil {
		return ErrNonCanonical
	}
	if err := checkPoint(p.IsInfinity(), p.IsOnCurve, subgroup, p.IsInSubGroup); err != nil {
		return err
	}
	*dst = p
	return nil
}

// Flag bits in the first byte of a serialized point (spec groth16-gpu.md §1.1).
const (
	flagMask       = 0xe0
	flagCompressed = 0x80
	flagInfinity   = 0x40
	flagLargest    = 0x20
)

// checkRawFlags accepts only the uncompressed, finite pattern 000. A well-formed
// uncompressed infinity (010, all else zero) is reported as ErrIdentity.
func checkRawFlags(b0 byte, rest []byte) error {
	switch b0 & flagMask {
	case 0:
		return nil
	case flagInfinity:
		if b0&^flagMask == 0 && allZero(rest) {
			return ErrIdentity
		}
		return fmt.Errorf("%w: infinity flag with non-zero bits", ErrInvalidEncoding)
	case flagCompressed, flagCompressed | flagLargest, flagCompressed | flagInfinity:
		return fmt.Errorf("%w: compressed point where an uncompressed one is required", ErrInvalidEncoding)
	default:
		return fmt.Errorf("%w: invalid flag bits %03b", ErrInvalidEncoding, b0>>5)
	}
}

// checkPoint applies the curve checks shared by G1 and G2. (0,0) is gnark's in-memory
// infinity but, without the infinity flag, just a point that is not on the curve.
func checkPoint(zero bool, onCurve func() bool, subgroup bool, inSubgroup func() bool) error {
	if zero || !onCurve() {
		return ErrNotOnCurve
	}
	if subgroup && !inSubgroup() {
		return ErrNotInSubgroup
	}
	return nil
}

func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

// decodeJob decodes one vector: exactly one of g1, g2 is set, with len = span count.
type decodeJob struct {
	span vectorSpan
	src  []byte
	g1   []bls.G1Affine
	g2   []bls.G2Affine
}

func g1Job(b []byte, s vectorSpan, dst []bls.G1Affine) decodeJob {
	return decodeJob{span: s, src: b[s.offset : s.offset+s.count*g1RawSize], g1: dst}
}

func g2Job(b []byte, s vectorSpan, dst []bls.G2Affine) decodeJob {
	return decodeJob{span: s, src: b[s.offset : s.offset+s.count*g2RawSize], g2: dst}
}

// decodeChunkPoints is the unit of work handed to a decoding goroutine: large enough to
// amortize the hand-off, small enough to balance 2 to 128 cores on multi-GB vectors.
const decodeChunkPoints = 8192

type decodeChunk struct {
	job        int
	start, end int
}

// decodeParallel decodes all jobs with workers goroutines over fixed-size chunks taken in
// file order. After an error no new chunk is started, but every earlier chunk was already
// taken and runs to its end, so the error returned is always the first one in the file.
// progress (nil: none) follows the points decoded.
func decodeParallel(jobs []decodeJob, mode subgroupMode, workers int, progress func(done, total int64)) error {
	var chunks []decodeChunk
	var total int64
	for j, job := range jobs {
		total += int64(job.span.count)
		for s := 0; s < job.span.count; s += decodeChunkPoints {
			chunks = append(chunks, decodeChunk{j, s, min(s+decodeChunkPoints, job.span.count)})
		}
	}
	if workers <= 0 {
		workers = runtime.NumCPU()
	}
	workers = min(workers, len(chunks))
	var next, decoded atomic.Int64
	var failed atomic.Bool
	firstErr := make([]*FormatError, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for !failed.Load() {
				c := int(next.Add(1) - 1)
				if c >= len(chunks) {
					return
				}
				if err := decodeChunkPointsInto(&jobs[chunks[c].job], chunks[c], mode); err != nil {
					firstErr[w] = err
					failed.Store(true)
					return
				}
				if progress != nil {
					progress(decoded.Add(int64(chunks[c].end-chunks[c].start)), total)
				}
			}
		})
	}
	wg.Wait()
	return earliest(firstErr)
}

// subgroupMode says how decodeParallel checks subgroup membership.
type subgroupMode int

const (
	subgroupNone  subgroupMode = iota // on-curve only, like blst's unchecked deserializer
	subgroupEach                      // one deterministic check per point
	subgroupBatch                     // batched per chunk, per point only for a failing chunk
)

// batchSubgroupMin is the chunk size from which gnark-crypto's batch subgroup tests use
// their probabilistic method (random subset sums, error probability below 2^-64: a
// point outside the subgroup escapes each of 64 independent sums with probability at most
// 1/2). That is about ten times cheaper than a check per point.
const batchSubgroupMin = 160

func decodeChunkPointsInto(job *decodeJob, c decodeChunk, mode subgroupMode) *FormatError {
	batch := mode == subgroupBatch && c.end-c.start >= batchSubgroupMin
	each := mode == subgroupEach || (mode == subgroupBatch && !batch)
	if err := decodeRange(job, c.start, c.end, each); err != nil {
		return err
	}
	if batch && !chunkInSubgroup(job, c) {
		return decodeRange(job, c.start, c.end, true) // names the first culprit
	}
	return nil
}

func chunkInSubgroup(job *decodeJob, c decodeChunk) bool {
	if job.g2 != nil {
		return bls.IsInSubGroupBatchG2(job.g2[c.start:c.end])
	}
	return bls.IsInSubGroupBatchG1(job.g1[c.start:c.end])
}

func decodeRange(job *decodeJob, start, end int, subgroup bool) *FormatError {
	size := g1RawSize
	if job.g2 != nil {
		size = g2RawSize
	}
	prefaultRead(job.src[start*size : end*size])
	for i := start; i < end; i++ {
		var err error
		if job.g2 != nil {
			err = decodeG2Raw(&job.g2[i], (*[g2RawSize]byte)(job.src[i*size:]), subgroup)
		} else {
			err = decodeG1Raw(&job.g1[i], (*[g1RawSize]byte)(job.src[i*size:]), subgroup)
		}
		if err != nil {
			return &FormatError{Vector: job.span.name, Index: i,
				Offset: int64(job.span.offset + i*size), Err: err}
		}
	}
	return nil
}

func earliest(errs []*FormatError) error {
	var first *FormatError
	for _, e := range errs {
		if e != nil && (first == nil || e.Offset < first.Offset) {
			first = e
		}
	}
	if first == nil {
		return nil
	}
	return first
}
