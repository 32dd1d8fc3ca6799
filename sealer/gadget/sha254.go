package gadget

import (
	"crypto/sha256"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// Native twins of the SHA-256 side of Filecoin (spec §4.4, §4.5). A 32-byte "domain" value
// is the little-endian canonical repr of an Fr. SHA-256 outputs are made into domain values
// by clearing the top two bits of byte 31 (rfp trim_to_fr32), which keeps them below 2^254
// and so always canonical.

// trimMask clears bits 254 and 255 of a little-endian 32-byte value.
const trimMask = 0x3f

// Sha254 is SHA-256 of data with the top two bits of byte 31 cleared (rfp
// Sha256Function::hash).
func Sha254(data []byte) [32]byte {
	d := sha256.Sum256(data)
	d[31] &= trimMask
	return d
}

// NodeHash is the tree-D node hash: SHA-256(left ‖ right) trimmed to 254 bits (rfp
// Sha256Function::node). Leaves are not re-hashed. It does not allocate.
func NodeHash(left, right *[32]byte) [32]byte {
	var buf [64]byte
	copy(buf[:32], left[:])
	copy(buf[32:], right[:])
	d := sha256.Sum256(buf[:])
	d[31] &= trimMask
	return d
}

// FrToBytesLE returns the little-endian canonical repr of x (blstrs to_repr).
func FrToBytesLE(x *fr.Element) [32]byte {
	var b [32]byte
	fr.LittleEndian.PutElement(&b, *x)
	return b
}

// FrFromBytesLE reads a little-endian canonical repr. It fails when b encodes a value
// ≥ p.
func FrFromBytesLE(b *[32]byte) (fr.Element, error) {
	return fr.LittleEndian.Element(b)
}

// frFromTrimmed reads a trimmed digest. A trimmed value is below 2^254 < p, so the
// canonical check cannot fail.
func frFromTrimmed(b *[32]byte) fr.Element {
	e, _ := fr.LittleEndian.Element(b)
	return e
}

// NodeHashFr is NodeHash on field elements: hash the two LE reprs, trim, read back.
func NodeHashFr(left, right *fr.Element) fr.Element {
	var buf [64]byte
	fr.LittleEndian.PutElement((*[32]byte)(buf[:32]), *left)
	fr.LittleEndian.PutElement((*[32]byte)(buf[32:]), *right)
	d := sha256.Sum256(buf[:])
	d[31] &= trimMask
	return frFromTrimmed(&d)
}

// Sha254Fr hashes the LE reprs of elems, concatenated, and returns the trimmed digest as
// a field element. It allocates nothing for up to 8 elements.
func Sha254Fr(elems ...fr.Element) fr.Element {
	h := sha256.New()
	var b [32]byte
	for i := range elems {
		fr.LittleEndian.PutElement(&b, elems[i])
		h.Write(b[:])
	}
	var d [32]byte
	h.Sum(d[:0])
	d[31] &= trimMask
	return frFromTrimmed(&d)
}

// FrBitsLE returns the 255 bits of x, least significant first (the values that
// AllocatedNum.ToBitsLE allocates).
func FrBitsLE(x *fr.Element) [255]bool {
	b := FrToBytesLE(x)
	var bits [255]bool
	for i := range bits {
		bits[i] = b[i/8]>>(i%8)&1 == 1
	}
	return bits
}

// ReverseBitNumberingBools is rfp's reverse_bit_numbering on plain bits: pad with false to
// a multiple of 8, then reverse the bits inside each 8-bit group. Applied to the LE bits
// of an Fr it yields the SHA-256 message bits of its LE repr (bytes in order, MSB first).
func ReverseBitNumberingBools(bits []bool) []bool {
	n := (len(bits) + 7) / 8 * 8
	out := make([]bool, n)
	for i, b := range bits {
		out[i/8*8+7-i%8] = b
	}
	return out
}

// BytesToBitsBE returns the bits of data, bytes in order, each byte MSB first: the bit
// order in which the SHA-256 gadget reads its input.
func BytesToBitsBE(data []byte) []bool {
	bits := make([]bool, 8*len(data))
	for i := range bits {
		bits[i] = data[i/8]>>(7-i%8)&1 == 1
	}
	return bits
}

// BitsBEToBytes is the inverse of BytesToBitsBE; len(bits) must be a multiple of 8.
func BitsBEToBytes(bits []bool) []byte {
	out := make([]byte, len(bits)/8)
	for i := range len(out) * 8 {
		if bits[i] {
			out[i/8] |= 1 << (7 - i%8)
		}
	}
	return out
}
