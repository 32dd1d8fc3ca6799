package groth16

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
	"runtime"
	"sync"
	"sync/atomic"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
)

// Dev parameter trailer.
//
// Parameters from a dev setup have toxic waste that someone knows, so a proof made with
// them proves nothing. To make such a file impossible to mistake for an official one, the
// writer appends, after b_g2, a 52-byte trailer:
//
//	magic   16 bytes  "SNARKPIPE-DEVPRM"
//	version  4 bytes  u32 big-endian, currently 1
//	digest  32 bytes  SHA-256 of every byte before the trailer
//
// Official bellperson files end right after b_g2, so their digests (parameters.json) can
// never match a dev file, and bellperson itself ignores the trailer (it stops reading at
// b_g2). ReadParams refuses any other trailing bytes, and refuses a dev file with
// ErrDevParams unless ReadOptions.AllowDev is set. The digest catches a truncated or
// patched dev file, and an official file that merely ends with the magic.
const (
	devTrailerMagic   = "SNARKPIPE-DEVPRM"
	devTrailerVersion = 1
	devTrailerSize    = len(devTrailerMagic) + 4 + sha256.Size
)

// ErrBadDevTrailer reports a dev trailer with the right magic but a wrong version or digest.
var ErrBadDevTrailer = errors.New("malformed dev-parameters trailer")

// scanDevTrailer classifies the bytes after b_g2 (rest, starting at file offset off):
// none (official file), a dev trailer (digest checked later by checkDevTrailer), or junk.
func scanDevTrailer(rest []byte, off int) (dev bool, err error) {
	if len(rest) == 0 {
		return false, nil
	}
	if !bytes.HasPrefix(rest, []byte(devTrailerMagic)) {
		return false, &FormatError{Vector: "trailer", Index: -1, Offset: int64(off),
			Err: fmt.Errorf("%w: %d bytes after b_g2", ErrTrailingBytes, len(rest))}
	}
	if len(rest) != devTrailerSize {
		return false, &FormatError{Vector: "trailer", Index: -1, Offset: int64(off),
			Err: fmt.Errorf("%w: %d bytes, want %d", ErrBadDevTrailer, len(rest), devTrailerSize)}
	}
	if v := binary.BigEndian.Uint32(rest[len(devTrailerMagic):]); v != devTrailerVersion {
		return false, &FormatError{Vector: "trailer", Index: -1, Offset: int64(off),
			Err: fmt.Errorf("%w: version %d, want %d", ErrBadDevTrailer, v, devTrailerVersion)}
	}
	return true, nil
}

// devHashSlice is how many bytes checkDevTrailer hashes between looks at its stop flag.
const devHashSlice = 256 << 20

// checkDevTrailer verifies the trailer's SHA-256 of body (all bytes before it). It gives
// up, returning nil, once stop is set (the decode running beside it failed and its error
// is the one reported): hashing a 47 GB file takes about 20 s.
func checkDevTrailer(body, trailer []byte, stop *atomic.Bool) error {
	h := sha256.New()
	for off := 0; off < len(body); off += devHashSlice {
		if stop.Load() {
			return nil
		}
		h.Write(body[off:min(off+devHashSlice, len(body))])
	}
	sum := h.Sum(nil)
	if !bytes.Equal(sum, trailer[len(devTrailerMagic)+4:]) {
		return &FormatError{Vector: "trailer", Index: -1, Offset: int64(len(body)),
			Err: fmt.Errorf("%w: SHA-256 of the file does not match", ErrBadDevTrailer)}
	}
	return nil
}

func appendDevTrailer(dst []byte, bodyDigest []byte) []byte {
	dst = append(dst, devTrailerMagic...)
	dst = binary.BigEndian.AppendUint32(dst, devTrailerVersion)
	return append(dst, bodyDigest...)
}

// WriteTo writes the verifying key in bellperson's .vk layout (spec groth16-gpu.md §1.3).
func (vk *VerifyingKey) WriteTo(w io.Writer) (int64, error) {
	pw := newPointWriter(w, false)
	vk.write(pw)
	return pw.finish()
}

func (vk *VerifyingKey) write(pw *pointWriter) {
	pw.g1("alpha_g1", &vk.AlphaG1)
	pw.g1("beta_g1", &vk.BetaG1)
	pw.g2("beta_g2", &vk.BetaG2)
	pw.g2("gamma_g2", &vk.GammaG2)
	pw.g1("delta_g1", &vk.DeltaG1)
	pw.g2("delta_g2", &vk.DeltaG2)
	pw.g1s("ic", vk.IC)
}

// WriteTo writes the parameters in bellperson's .params layout (spec groth16-gpu.md §1.2),
// followed by the dev trailer iff p.Dev. Identity points cannot be written: no reader
// would accept the file.
func (p *Params) WriteTo(w io.Writer) (int64, error) {
	pw := newPointWriter(w, p.Dev)
	p.VK.write(pw)
	pw.g1s("h", p.H)
	pw.g1s("l", p.L)
	pw.g1s("a", p.A)
	pw.g1s("b_g1", p.BG1)
	pw.g2s("b_g2", p.BG2)
	if p.Dev && pw.err == nil {
		pw.trailer()
	}
	return pw.finish()
}

// FileSize is the size in bytes of what WriteTo writes.
func (p *Params) FileSize() int64 {
	return paramsFileSize(len(p.VK.IC), len(p.H)+len(p.L)+len(p.A)+len(p.BG1), len(p.BG2), p.Dev)
}

// paramsFileSize is the size of a .params file: the verifying key (ic IC points), the
// proving-key vectors (g1 G1 and g2 G2 points in all), six length fields, and the dev
// trailer when dev.
func paramsFileSize(ic, g1, g2 int, dev bool) int64 {
	size := int64(vkFixedSize) + 6*countSize + int64(ic+g1)*g1RawSize + int64(g2)*g2RawSize
	if dev {
		size += int64(devTrailerSize)
	}
	return size
}

// WriteFile writes the parameters to path atomically: a temporary file in the same
// directory, synced, then renamed over path.
func (p *Params) WriteFile(path string) (err error) {
	f, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("groth16: write params: %w", err)
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	if _, err = p.WriteTo(f); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return fmt.Errorf("groth16: write params: %w", err)
	}
	if err = f.Close(); err != nil {
		return fmt.Errorf("groth16: write params: %w", err)
	}
	if err = os.Rename(f.Name(), path); err != nil {
		return fmt.Errorf("groth16: write params: %w", err)
	}
	return nil
}

// pointWriter writes uncompressed points through a buffer, keeping the first error, the
// byte count and, when asked (dev trailer), a SHA-256 of everything written.
type pointWriter struct {
	bw  *bufio.Writer
	sum hash.Hash // nil unless the dev trailer is needed
	n   int64
	err error
}

func newPointWriter(w io.Writer, hashed bool) *pointWriter {
	pw := &pointWriter{bw: bufio.NewWriterSize(w, 1<<20)}
	if hashed {
		pw.sum = sha256.New()
	}
	return pw
}

func (pw *pointWriter) write(b []byte) {
	if pw.err != nil {
		return
	}
	n, err := pw.bw.Write(b)
	if pw.sum != nil {
		pw.sum.Write(b[:n])
	}
	pw.n += int64(n)
	pw.err = err
}

func (pw *pointWriter) identity(name string, i int) {
	if pw.err == nil {
		pw.err = &FormatError{Vector: name, Index: i, Offset: pw.n, Err: ErrIdentity}
	}
}

func (pw *pointWriter) g1(name string, p *bls.G1Affine) { pw.g1At(name, 0, p) }

func (pw *pointWriter) g1At(name string, i int, p *bls.G1Affine) {
	if p.IsInfinity() {
		pw.identity(name, i)
		return
	}
	raw := p.RawBytes()
	pw.write(raw[:])
}

func (pw *pointWriter) g2(name string, p *bls.G2Affine) { pw.g2At(name, 0, p) }

func (pw *pointWriter) g2At(name string, i int, p *bls.G2Affine) {
	if p.IsInfinity() {
		pw.identity(name, i)
		return
	}
	raw := p.RawBytes()
	pw.write(raw[:])
}

func (pw *pointWriter) count(name string, n int) {
	if uint64(n) > math.MaxUint32 && pw.err == nil {
		pw.err = &FormatError{Vector: name, Index: -1, Offset: pw.n,
			Err: fmt.Errorf("%d points do not fit a u32 length", n)}
	}
	pw.write(binary.BigEndian.AppendUint32(nil, uint32(n)))
}

func (pw *pointWriter) g1s(name string, ps []bls.G1Affine) {
	pw.count(name, len(ps))
	pw.g1Points(name, 0, ps)
}

func (pw *pointWriter) g2s(name string, ps []bls.G2Affine) {
	pw.count(name, len(ps))
	pw.g2Points(name, 0, ps)
}

// g1Points writes ps, the points of vector name from index first on (no length field).
func (pw *pointWriter) g1Points(name string, first int, ps []bls.G1Affine) {
	pw.vector(name, first, len(ps), g1RawSize, func(i int, dst []byte) bool {
		if ps[i].IsInfinity() {
			return false
		}
		raw := ps[i].RawBytes()
		copy(dst, raw[:])
		return true
	})
}

// g2Points is g1Points for G2.
func (pw *pointWriter) g2Points(name string, first int, ps []bls.G2Affine) {
	pw.vector(name, first, len(ps), g2RawSize, func(i int, dst []byte) bool {
		if ps[i].IsInfinity() {
			return false
		}
		raw := ps[i].RawBytes()
		copy(dst, raw[:])
		return true
	})
}

// fail keeps err as the writer's error unless it already has one.
func (pw *pointWriter) fail(err error) {
	if pw.err == nil {
		pw.err = err
	}
}

// encodeChunkPoints is the number of points one goroutine encodes per round.
const encodeChunkPoints = 8192

// vector encodes n points of size bytes each, in rounds of up to NumCPU chunks encoded in
// parallel and then written in order (Montgomery → canonical conversion dominates, and a
// dev file at production shape has half a billion points). put encodes point i into dst
// and reports false for the point at infinity, which stops the write with an error whose
// offset is that point's (its index in the vector is first+i).
func (pw *pointWriter) vector(name string, first0, n, size int, put func(i int, dst []byte) bool) {
	chunks := (n + encodeChunkPoints - 1) / encodeChunkPoints
	workers := min(runtime.NumCPU(), chunks)
	bufs := make([][]byte, workers)
	bad := make([]int, workers)
	for w := range bufs {
		bufs[w] = make([]byte, min(n, encodeChunkPoints)*size)
	}
	span := func(first, w int) (int, int) {
		start := first + w*encodeChunkPoints
		return start, min(start+encodeChunkPoints, n)
	}
	for first := 0; first < n && pw.err == nil; first += workers * encodeChunkPoints {
		var wg sync.WaitGroup
		for w := range workers {
			start, end := span(first, w)
			bad[w] = -1
			if start >= n {
				break
			}
			wg.Go(func() {
				for i := start; i < end; i++ {
					if !put(i, bufs[w][(i-start)*size:]) {
						bad[w] = i
						return
					}
				}
			})
		}
		wg.Wait()
		for w := range workers {
			start, end := span(first, w)
			if start >= n {
				break
			}
			if bad[w] >= 0 {
				pw.write(bufs[w][:(bad[w]-start)*size])
				pw.identity(name, first0+bad[w])
				return
			}
			pw.write(bufs[w][:(end-start)*size])
		}
	}
}

func (pw *pointWriter) trailer() {
	t := appendDevTrailer(nil, pw.sum.Sum(nil))
	if pw.err == nil {
		n, err := pw.bw.Write(t)
		pw.n += int64(n)
		pw.err = err
	}
}

func (pw *pointWriter) finish() (int64, error) {
	if pw.err == nil {
		pw.err = pw.bw.Flush()
	}
	return pw.n, pw.err
}
