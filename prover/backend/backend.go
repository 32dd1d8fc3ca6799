// Package backend declares the hardware interface of the Groth16 prover: resident bases,
// the quotient (NTT) pipeline, G1/G2 multi-scalar multiplication and 0/1 batch additions.
// backend/cpu implements it with gnark-crypto; backend/gpu with the CUDA library.
package backend

import (
	"errors"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
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
