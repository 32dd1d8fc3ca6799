// Package backend declares the hardware interface of the Groth16 prover: resident bases,
// the quotient (NTT) pipeline, G1/G2 multi-scalar multiplication and 0/1 batch additions.
// backend/cpu implements it with gnark-crypto; backend/gpu with the CUDA library.
package backend

import (
	"errors"
	"fmt"
	"math/bits"
	"strings"
	"time"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/snarkpipe/snarkpipe/prover/r1cs"
)

// ErrClosed is returned by every method of a closed backend or base set.
var ErrClosed = errors.New("backend: closed")

// G1Bases is a G1 base vector held by a backend (host memory for the CPU backend, device
// memory for the GPU). Scalars index it from a caller-given offset.
type G1Bases interface {
	Len() int
	Close() error
}

// G2Bases is the G2 counterpart of G1Bases.
type G2Bases interface {
	Len() int
	Close() error
}

// Backend is what prover/groth16 needs from hardware. Scalars are fr.Element in
// Montgomery form. All methods are safe for concurrent use.
type Backend interface {
	// Name identifies the backend in logs and benchmarks ("cpu", "gpu0").
	Name() string

	// LoadG1 / LoadG2 make points resident. The CPU backend keeps a reference to the
	// slice (the caller must not modify it while the bases are open); the GPU copies.
	LoadG1(points []bls.G1Affine) (G1Bases, error)
	LoadG2(points []bls.G2Affine) (G2Bases, error)

	// MSMG1 returns Σ scalars[i]·bases[offset+i].
	MSMG1(bases G1Bases, offset int, scalars []fr.Element) (bls.G1Jac, error)
	// MSMG2 returns Σ scalars[i]·bases[offset+i].
	MSMG2(bases G2Bases, offset int, scalars []fr.Element) (bls.G2Jac, error)

	// BatchAddG1 returns Σ bases[offset+i] over the set bits i < n of bitmap
	// (bit i is bitmap[i/64]>>(i%64)&1).
	BatchAddG1(bases G1Bases, offset int, bitmap []uint64, n int) (bls.G1Jac, error)
	// BatchAddG2 is the G2 counterpart of BatchAddG1.
	BatchAddG2(bases G2Bases, offset int, bitmap []uint64, n int) (bls.G2Jac, error)

	// QuotientH turns the row evaluations a, b, c (each of length m, a power of two,
	// zero-padded past the rows) into the coefficients of h = (A·B − C)/(X^m − 1),
	// written into a; b and c are clobbered. It performs bellperson's sequence: iNTT of
	// a, b, c; coset NTT with shift 7; a·b − c; multiply by 1/(7^m − 1); coset iNTT.
	// Only a[0..m−2] is meaningful afterwards (a[m−1] is zero).
	QuotientH(a, b, c []fr.Element) error

	// Close releases everything the backend holds.
	Close() error
}

// ResidentShape is a recorded R1CS (CSR matrices, coefficient table, density index lists)
// held by a backend that implements ShapeEvaluator.
type ResidentShape interface {
	Close() error
}

// ResidentKey names the five resident parameter vectors a proof runs its MSMs against.
type ResidentKey struct {
	H, L, A, BG1 G1Bases
	BG2          G2Bases
}

// KeyParts names vectors of a ResidentKey (a bit set).
type KeyParts uint8

// The vectors of a ResidentKey.
const (
	KeyH KeyParts = 1 << iota
	KeyL
	KeyA
	KeyBG1
	KeyBG2
	KeyAll = KeyH | KeyL | KeyA | KeyBG1 | KeyBG2
)

// String names the vectors, e.g. "h+l" ("none" for the empty set).
func (p KeyParts) String() string {
	if p == 0 {
		return "none"
	}
	var names []string
	for i, n := range []string{"h", "l", "a", "b_g1", "b_g2"} {
		if p&(1<<i) != 0 {
			names = append(names, n)
		}
	}
	return strings.Join(names, "+")
}

// KeyStreamer is a device backend that can keep key vectors in page-locked host memory
// and stream them to the device for each MSM, with the same results as resident vectors
// (the memory tiers: a key too large for the card's memory stays in host memory).
type KeyStreamer interface {
	// LoadG1Host and LoadG2Host copy points into page-locked host memory; the bases
	// work wherever resident bases do on the pre-compiled path (ProveResident).
	LoadG1Host(points []bls.G1Affine) (G1Bases, error)
	LoadG2Host(points []bls.G2Affine) (G2Bases, error)
	// StreamKey moves the vectors of k named by parts from the device into host memory
	// (freeing their device memory) and returns the key with them replaced.
	StreamKey(k ResidentKey, parts KeyParts) (ResidentKey, error)
	// HostKeyBytes is the page-locked host memory held by streamed vectors.
	HostKeyBytes() uint64
	// StreamsKeys reports whether the streamed MSMs are available (a library built
	// before them has none).
	StreamsKeys() bool
}

// ShapeStreamer is a ShapeEvaluator that can keep a recorded shape's CSR sides in
// page-locked host memory and stream them to the device for each proof's A·z, B·z, C·z
// (the memory tiers' streamed shape), with the same results.
type ShapeStreamer interface {
	LoadShapeStreamed(s *r1cs.Shape) (ResidentShape, error)
	// ShapeStreamable reports whether the library can (one built before cannot).
	ShapeStreamable() bool
}

// CapLifter is a backend whose device-memory cap (a smaller card played by a larger
// one) can be lifted while f runs and is set again after it, refused if more memory is
// then in use than the cap allows. The pipeline uses it only to make benchmark keys on
// the device before moving their streamed vectors to host memory.
type CapLifter interface {
	WithoutCap(f func() error) error
}

// ResidentResults are the five MSM results of one proof on the pre-compiled path:
// H = Σ h_i·H_i, L = Σ aux_i·L_i, A and B over the density-selected variables.
type ResidentResults struct {
	H, L, A, B1 bls.G1Jac
	B2          bls.G2Jac
	Timings     ResidentTimings
}

// ResidentTimings is where one proof's device time went, stage by stage. Total is the
// call end to end: Wait for the device (proofs of other callers on the same stream),
// Buffers to check out the proof's device vectors (allocated by a shape's first proofs,
// with any trim and retry after an out-of-memory), then the stages, which run one after
// the other on one stream unless SideStream says otherwise.
type ResidentTimings struct {
	Wait, Buffers                                                 time.Duration
	Upload, Eval, Quotient, MSMH, MSML, MSMA, MSMB1, MSMB2, Total time.Duration
	// SideStream: the L MSM ran on a second stream from the end of Eval, beside the
	// quotient, then B1, B2 and A in that order, once L and the quotient were both done,
	// beside the H MSM; their times overlap the others'.
	SideStream bool
	// MSMRoundsDropped counts this proof's MSMs that ran without their faster
	// batch-affine accumulation because its scratch did not fit the device (same result,
	// slower): a sign that device memory is short.
	MSMRoundsDropped int
	// OutOfMemoryRetries is 1 when the proof ran out of device memory, the backend trimmed
	// its pools and ran it again (on one stream), or ran again on the proof's own stream
	// the side-stream stages that ran out: the stage times are the last run's, and Total
	// includes the failed one.
	OutOfMemoryRetries int
	// Streamed proofs (StreamingShapeEvaluator): Chunks is how many prefixes of aux the
	// device worked on while the host was still filling the rest, and FillWait how long
	// the device waited for the host's fill in all (not part of any stage).
	Chunks   int
	FillWait time.Duration
}

// ShapeEvaluator is an optional Backend capability: the pre-compiled proving path. A
// recorded shape is uploaded once per circuit; each proof then uploads only its
// assignment z = inputs ‖ aux, and the backend computes A·z, B·z, C·z, the quotient h and
// the five MSMs without a round trip to the host. Results equal the Backend methods'
// (QuotientH of the Shape.Eval vectors, then MSMG1/MSMG2 on the density-filtered scalars).
type ShapeEvaluator interface {
	// LoadShape makes s resident. s must be consistent (Shape.Validate); the backend
	// checks ranges again before upload so that bad shapes never reach a kernel.
	LoadShape(s *r1cs.Shape) (ResidentShape, error)
	// ProveResident runs one proof's backend work for the assignment inputs ‖ aux of the
	// shape against the key's resident vectors.
	ProveResident(s ResidentShape, inputs, aux []fr.Element, k ResidentKey) (ResidentResults, error)
}

// AuxProgress is how a streamed proof learns how far the host has filled the
// assignment it was given: the host fills aux in order, a prefix at a time, and the
// inputs by the end.
type AuxProgress interface {
	// WaitAux blocks until aux[:n] holds its final values, or returns the fill's error
	// (the proof must then stop and not read the assignment again).
	WaitAux(n int) error
	// WaitAll blocks until the whole assignment, inputs included, is final, or returns
	// the fill's error.
	WaitAll() error
}

// StreamingShapeEvaluator is an optional ShapeEvaluator capability: a proof that starts
// while the host is still filling its aux assignment in order. Work over aux (an MSM over
// the aux variables, cut into prefixes) runs on the prefixes already filled, and the rest
// once the assignment is complete, so the host's fill hides behind device work. Results
// equal ProveResident's for the final assignment.
type StreamingShapeEvaluator interface {
	ShapeEvaluator
	ProveResidentStreamed(s ResidentShape, inputs, aux []fr.Element, k ResidentKey, ready AuxProgress) (ResidentResults, error)
}

// BasesReader is an optional Backend capability: copying resident bases back to host
// memory (benchmark keys made on a device, then kept on the host as parameter files
// would be, or written to a parameter file). A read copies the len(dst) bases starting at
// index offset, so a key can be streamed to disk in pieces without a second whole copy on
// the host; a range past the end is an error.
type BasesReader interface {
	ReadG1(b G1Bases, offset int, dst []bls.G1Affine) error
	ReadG2(b G2Bases, offset int, dst []bls.G2Affine) error
}

// ConcurrentProver is an optional ShapeEvaluator capability: the number of resident
// proofs the backend runs at once, each with its own set of per-proof device buffers
// kept with the shape (the pipeline reserves that many sets per resident shape).
type ConcurrentProver interface {
	ProofStreams() int
}

// BufferReserver is an optional ShapeEvaluator capability: allocating ahead of time the
// per-proof device buffers a shape's first proof would otherwise allocate (and the shape
// keeps, see ConcurrentProver), so that the first proof after a load does not pay for
// them. On the H200 a 32 GiB PoRep set (16 GiB) took 4.6–11 s inside the first proof.
// It allocates nothing when the shape already holds an idle set.
type BufferReserver interface {
	ReserveProofBuffers(s ResidentShape) error
}

// SetupWaste is the toxic waste of a benchmark setup. It is known to whoever made the
// setup, who can therefore forge proofs: keys made from it serve benchmarks and tests only.
type SetupWaste struct{ Tau, Alpha, Beta, Gamma, Delta fr.Element }

// KeyGenerator is an optional Backend capability: a setup computed where the keys will
// live (bellperson's generator: Lagrange basis at τ over the domain, u, v, w per variable
// by transposed sparse products over the recorded matrices, fixed-base multiplications),
// so benchmark keys of any size are made in seconds and never cross to the host.
type KeyGenerator interface {
	// GenerateKey returns the resident h, l, a, b_g1, b_g2 vectors for shape s and waste w,
	// and the input scalars (β·u_i + α·v_i + w_i)/γ from which the host makes the VK's IC.
	GenerateKey(s *r1cs.Shape, w SetupWaste) (k ResidentKey, ic []fr.Element, err error)
}

// PackedAux is an aux assignment with its zero and one values bit-packed, the rest as
// field elements: most of a Filecoin witness is bits, so this is what a proof uploads
// on the pre-compiled path. Bit j (word j/64, bit j%64) of Field says aux j is the next
// entry of Values; otherwise bit j of Ones says whether it is one or zero.
type PackedAux struct {
	N           int
	Field, Ones []uint64
	Values      []fr.Element
}

// PackAux packs aux (a new PackedAux; aux is not kept).
func PackAux(aux []fr.Element) PackedAux {
	words := (len(aux) + 63) / 64
	p := PackedAux{N: len(aux), Field: make([]uint64, words), Ones: make([]uint64, words)}
	one := fr.One()
	for j := range aux {
		switch {
		case aux[j].IsZero():
		case aux[j].Equal(&one):
			p.Ones[j/64] |= 1 << (j % 64)
		default:
			p.Field[j/64] |= 1 << (j % 64)
			p.Values = append(p.Values, aux[j])
		}
	}
	return p
}

// Validate checks that the bitmaps have one word per 64 values, no bits past N, and as
// many Field bits as Values.
func (p *PackedAux) Validate() error {
	words := (p.N + 63) / 64
	if p.N < 0 || len(p.Field) != words || len(p.Ones) != words {
		return errors.New("backend: packed aux: bitmaps do not have one word per 64 values")
	}
	set := 0
	for w := range p.Field {
		if r := p.N - 64*w; r < 64 && (p.Field[w]|p.Ones[w])>>r != 0 {
			return errors.New("backend: packed aux: bits set past the last value")
		}
		set += bits.OnesCount64(p.Field[w])
	}
	if set != len(p.Values) {
		return fmt.Errorf("backend: packed aux: %d field bits but %d values", set, len(p.Values))
	}
	return nil
}

// Unpack returns the plain aux vector (host reference of the device expansion).
func (p *PackedAux) Unpack() []fr.Element {
	out := make([]fr.Element, p.N)
	k := 0
	for j := range out {
		bit := uint64(1) << (j % 64)
		switch {
		case p.Field[j/64]&bit != 0:
			out[j] = p.Values[k]
			k++
		case p.Ones[j/64]&bit != 0:
			out[j].SetOne()
		}
	}
	return out
}

// PackedShapeEvaluator is a ShapeEvaluator that also takes the aux assignment bit-packed
// and expands it on the device.
type PackedShapeEvaluator interface {
	ShapeEvaluator
	ProveResidentPacked(s ResidentShape, inputs []fr.Element, aux *PackedAux, k ResidentKey) (ResidentResults, error)
}

// HostPinner is an optional Backend capability: page-locking a long-lived host vector (a
// pipeline's reused witness buffer) so that uploads from it run at full bus speed. The
// caller keeps v allocated and unmodified in length until it calls unpin.
type HostPinner interface {
	PinHost(v []fr.Element) (unpin func() error, err error)
}

// MemoryReporter is an optional Backend capability of a backend with memory of its own
// (a GPU): its free and total bytes now. The pipeline keeps such a device's budget
// within its total memory.
type MemoryReporter interface {
	MemInfo() (free, total uint64, err error)
}
