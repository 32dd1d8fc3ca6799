package groth16

import (
	"errors"
	"fmt"
	"io"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/snarkpipe/snarkpipe/prover/backend"
)

// streamChunkPoints is how many bases WriteParams reads back from the backend at a time
// (192 MiB of G1, 384 MiB of G2 points per buffer, two buffers). A variable so that tests
// cross chunk boundaries on small keys.
var streamChunkPoints = 1 << 21

// ParamsFileSize is the size in bytes of the .params file WriteParams writes for pk (the
// dev trailer included when the key is marked Dev): what a writer must find free on disk.
func (pk *ProvingKey) ParamsFileSize() int64 {
	return paramsFileSize(len(pk.Params.VK.IC), pk.h.Len()+pk.l.Len()+pk.a.Len()+pk.bg1.Len(), pk.bg2.Len(), pk.Params.Dev)
}

// WriteParams writes the key in bellperson's .params layout, followed by the dev trailer
// iff pk.Params.Dev (a benchmark or dev key always is). A key whose Params still hold the
// host vectors is written from them; a key made on a device (BenchSetup) is read back
// from the backend, which must be a backend.BasesReader, in chunks of streamChunkPoints
// through two reused buffers (the next chunk is read while the current one is encoded),
// so a 47 GB key needs under a GiB of host memory besides the file's page cache.
func (pk *ProvingKey) WriteParams(w io.Writer) (int64, error) {
	if pk.Params == nil {
		return 0, errors.New("groth16: proving key without a verifying key")
	}
	if pk.hasHostVectors() {
		return pk.Params.WriteTo(w)
	}
	rd, ok := pk.backend.(backend.BasesReader)
	if !ok {
		return 0, fmt.Errorf("groth16: backend %s cannot read its bases back", pk.backend.Name())
	}
	pw := newPointWriter(w, pk.Params.Dev)
	pk.Params.VK.write(pw)
	for _, v := range []struct {
		name  string
		bases backend.G1Bases
	}{{"h", pk.h}, {"l", pk.l}, {"a", pk.a}, {"b_g1", pk.bg1}} {
		streamVector(pw, v.name, v.bases.Len(), func(off int, dst []bls.G1Affine) error {
			return rd.ReadG1(v.bases, off, dst)
		}, pw.g1Points)
	}
	streamVector(pw, "b_g2", pk.bg2.Len(), func(off int, dst []bls.G2Affine) error {
		return rd.ReadG2(pk.bg2, off, dst)
	}, pw.g2Points)
	if pk.Params.Dev && pw.err == nil {
		pw.trailer()
	}
	return pw.finish()
}

// hasHostVectors says whether pk.Params holds every vector the backend holds (a key made
// from parameters read or generated on the host), so that no read-back is needed.
func (pk *ProvingKey) hasHostVectors() bool {
	p := pk.Params
	return len(p.H) == pk.h.Len() && len(p.L) == pk.l.Len() && len(p.A) == pk.a.Len() &&
		len(p.BG1) == pk.bg1.Len() && len(p.BG2) == pk.bg2.Len()
}

// streamVector writes the length field of a vector of n points, then the points, read
// by read in chunks into two off-heap buffers: chunk k+1 is read while chunk k is
// encoded by put. A read error or the writer's first error stops it; the error of a
// read is kept in pw.
func streamVector[T any](pw *pointWriter, name string, n int, read func(off int, dst []T) error, put func(name string, first int, pts []T)) {
	pw.count(name, n)
	if n == 0 || pw.err != nil {
		return
	}
	chunk := min(n, streamChunkPoints)
	var bufs [2][]T
	for i := range bufs {
		vec, blk, err := allocVector[T](chunk)
		if err != nil {
			pw.fail(err)
			return
		}
		defer blk.free()
		bufs[i] = vec
	}
	done := make(chan error, 1)
	fetch := func(off int, buf []T) {
		go func() { done <- read(off, buf[:min(chunk, n-off)]) }()
	}
	fetch(0, bufs[0])
	for k, off := 0, 0; off < n; k, off = k+1, off+chunk {
		if err := <-done; err != nil {
			pw.fail(fmt.Errorf("groth16: reading %s[%d:] back from the backend: %w", name, off, err))
			return
		}
		cur := bufs[k%2][:min(chunk, n-off)]
		if off+chunk < n {
			fetch(off+chunk, bufs[(k+1)%2])
		}
		put(name, off, cur)
		if pw.err != nil {
			if off+chunk < n {
				<-done // the buffer being read must outlive the read
			}
			return
		}
	}
}
