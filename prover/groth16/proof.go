package groth16

import (
	"errors"
	"fmt"
	"runtime"
	"sync"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fp"
)

// Sizes of a Groth16 proof in bellperson's encoding (spec groth16-gpu.md §1.5).
const (
	g1CompressedSize = 48
	g2CompressedSize = 96
	// ProofSize is the length of one encoded proof: A ‖ B ‖ C, compressed.
	ProofSize = 2*g1CompressedSize + g2CompressedSize
)

// ErrProofLength reports proof bytes whose length is not a positive multiple of ProofSize.
var ErrProofLength = errors.New("groth16: proof bytes are not a positive multiple of 192")

// Proof is one Groth16 proof.
type Proof struct {
	A bls.G1Affine
	B bls.G2Affine
	C bls.G1Affine
}

// Bytes encodes the proof as bellperson's Proof::write does: A (G1 compressed, 48 bytes),
// B (G2 compressed, 96 bytes, imaginary part first), C (G1 compressed, 48 bytes).
// The encoding is the zcash one that gnark-crypto's Bytes produces (spec §1.6).
func (p Proof) Bytes() [ProofSize]byte {
	var out [ProofSize]byte
	a, b, c := p.A.Bytes(), p.B.Bytes(), p.C.Bytes()
	copy(out[0:], a[:])
	copy(out[g1CompressedSize:], b[:])
	copy(out[g1CompressedSize+g2CompressedSize:], c[:])
	return out
}

// MarshalBinary returns Bytes as a slice. It never fails; an identity point is encoded
// (as bellperson would) and then refused by every decoder.
func (p Proof) MarshalBinary() ([]byte, error) {
	b := p.Bytes()
	return b[:], nil
}

// UnmarshalBinary is DecodeProof into p.
func (p *Proof) UnmarshalBinary(b []byte) error {
	q, err := DecodeProof(b)
	if err != nil {
		return err
	}
	*p = q
	return nil
}

// DecodeProof decodes exactly one 192-byte proof, as bellperson's read_many does for each
// proof: compressed points only, canonical coordinates, on the curve, in the subgroup,
// and no point at infinity.
func DecodeProof(b []byte) (Proof, error) {
	if len(b) != ProofSize {
		return Proof{}, fmt.Errorf("%w: got %d bytes", ErrProofLength, len(b))
	}
	return decodeProofAt(b, 0)
}

// DecodeProofs decodes the concatenation of one or more proofs (a multi-partition
// Filecoin proof), in parallel. The error names the first bad proof.
func DecodeProofs(b []byte) ([]Proof, error) {
	if len(b) == 0 || len(b)%ProofSize != 0 {
		return nil, fmt.Errorf("%w: got %d bytes", ErrProofLength, len(b))
	}
	proofs := make([]Proof, len(b)/ProofSize)
	errs := make([]error, len(proofs))
	var next sync.Mutex
	nextIdx := 0
	var wg sync.WaitGroup
	for range min(runtime.NumCPU(), len(proofs)) {
		wg.Go(func() {
			for {
				next.Lock()
				i := nextIdx
				nextIdx++
				next.Unlock()
				if i >= len(proofs) {
					return
				}
				proofs[i], errs[i] = decodeProofAt(b[i*ProofSize:(i+1)*ProofSize], i)
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err // a *FormatError whose Index is the proof's position
		}
	}
	return proofs, nil
}

// decodeProofAt decodes one proof; index is the proof's position in a concatenation and
// only serves the error offsets.
func decodeProofAt(b []byte, index int) (Proof, error) {
	var p Proof
	base := int64(index * ProofSize)
	if err := decodeG1Compressed(&p.A, (*[g1CompressedSize]byte)(b[0:])); err != nil {
		return Proof{}, &FormatError{Vector: "proof.a", Index: index, Offset: base, Err: err}
	}
	if err := decodeG2Compressed(&p.B, (*[g2CompressedSize]byte)(b[g1CompressedSize:])); err != nil {
		return Proof{}, &FormatError{Vector: "proof.b", Index: index, Offset: base + g1CompressedSize, Err: err}
	}
	if err := decodeG1Compressed(&p.C, (*[g1CompressedSize]byte)(b[g1CompressedSize+g2CompressedSize:])); err != nil {
		return Proof{}, &FormatError{Vector: "proof.c", Index: index, Offset: base + g1CompressedSize + g2CompressedSize, Err: err}
	}
	return p, nil
}

// checkCompressedFlags accepts the finite compressed patterns 100 and 101; a well-formed
// compressed infinity (110, all else zero) is ErrIdentity.
func checkCompressedFlags(b0 byte, rest []byte) error {
	switch b0 & flagMask {
	case flagCompressed, flagCompressed | flagLargest:
		return nil
	case flagCompressed | flagInfinity:
		if b0&^flagMask == 0 && allZero(rest) {
			return ErrIdentity
		}
		return fmt.Errorf("%w: infinity flag with non-zero bits", ErrInvalidEncoding)
	case 0, flagInfinity:
		return fmt.Errorf("%w: uncompressed flag in a compressed point", ErrInvalidEncoding)
	default:
		return fmt.Errorf("%w: invalid flag bits %03b", ErrInvalidEncoding, b0>>5)
	}
}

// decodeG1Compressed checks flags and canonical X itself, so that each failure gets its
// typed error, then lets gnark-crypto's SetBytes recover Y and check the subgroup.
func decodeG1Compressed(dst *bls.G1Affine, src *[g1CompressedSize]byte) error {
	if err := checkCompressedFlags(src[0], src[1:]); err != nil {
		return err
	}
	x := *src
	x[0] &^= flagMask
	xe, err := fp.BigEndian.Element(&x)
	if err != nil {
		return ErrNonCanonical
	}
	if _, err := dst.SetBytes(src[:]); err != nil {
		var rhs fp.Element
		rhs.Square(&xe).Mul(&rhs, &xe).Add(&rhs, &g1CurveB)
		if rhs.Legendre() < 0 {
			return ErrNotOnCurve
		}
		return ErrNotInSubgroup
	}
	return nil
}

// decodeG2Compressed is decodeG1Compressed for G2 (X = c1 ‖ c0).
func decodeG2Compressed(dst *bls.G2Affine, src *[g2CompressedSize]byte) error {
	if err := checkCompressedFlags(src[0], src[1:]); err != nil {
		return err
	}
	c1 := *(*[fp.Bytes]byte)(src[0:])
	c1[0] &^= flagMask
	var x bls.E2
	var err0, err1 error
	x.A1, err1 = fp.BigEndian.Element(&c1)
	x.A0, err0 = fp.BigEndian.Element((*[fp.Bytes]byte)(src[fp.Bytes:]))
	if err0 != nil || err1 != nil {
		return ErrNonCanonical
	}
	if _, err := dst.SetBytes(src[:]); err != nil {
		var rhs bls.E2
		rhs.Square(&x).Mul(&rhs, &x).Add(&rhs, &g2CurveB)
		if rhs.Legendre() < 0 {
			return ErrNotOnCurve
		}
		return ErrNotInSubgroup
	}
	return nil
}

// Curve constants: G1 is y² = x³ + 4, G2 is y² = x³ + 4(1 + i).
var (
	g1CurveB = fp.NewElement(4)
	g2CurveB = bls.E2{A0: fp.NewElement(4), A1: fp.NewElement(4)}
)
