package types

import (
	"crypto/sha256"
	"encoding/binary"

	"github.com/filecoin-project/go-state-types/abi"
)

// Commitment is a 32-byte commitment (comm_d, comm_r, comm_c, comm_r_last) or any other
// 32-byte domain value, in upstream's byte order (little-endian Fr repr for Poseidon domains).
type Commitment [32]byte

// ProverID is the 32-byte prover id of a miner: the unsigned LEB128 encoding of its actor id
// (the payload of its ID address), left-aligned and zero padded (filecoin-ffi toProverID,
// cuzk make_prover_id).
func ProverID(miner abi.ActorID) [32]byte {
	var out [32]byte
	binary.PutUvarint(out[:], uint64(miner))
	return out
}

// MaskFr clears the top two bits of the last byte so that a 32-byte little-endian value is
// below the BLS12-381 scalar modulus (upstream bytes_into_fr_repr_safe, and the randomness
// masking `[31] &= 0x3f` lotus applies to PoSt randomness).
func MaskFr(b [32]byte) [32]byte {
	b[31] &= 0x3f
	return b
}

// MaskRandomness returns a 32-byte copy of PoSt/seal randomness with `[31] &= 0x3f` applied.
// Randomness of another length is reported as not ok.
func MaskRandomness(r []byte) (out [32]byte, ok bool) {
	if len(r) != 32 {
		return out, false
	}
	copy(out[:], r)
	return MaskFr(out), true
}

// ReplicaID derives upstream's replica_id: SHA-256(prover_id ‖ u64_be(sector) ‖ ticket ‖
// comm_d ‖ porep_id) with the top two bits cleared (rust-fil-proofs
// storage-proofs-porep/src/stacked/vanilla/params.rs generate_replica_id).
func ReplicaID(proverID [32]byte, sector abi.SectorNumber, ticket, commD, porepID [32]byte) [32]byte {
	h := sha256.New()
	h.Write(proverID[:])
	var be [8]byte
	binary.BigEndian.PutUint64(be[:], uint64(sector))
	h.Write(be[:])
	h.Write(ticket[:])
	h.Write(commD[:])
	h.Write(porepID[:])
	var out [32]byte
	h.Sum(out[:0])
	return MaskFr(out)
}

// frModulusLE is the BLS12-381 scalar field modulus, little-endian.
var frModulusLE = [32]byte{
	0x01, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff, 0xfe, 0x5b, 0xfe, 0xff, 0x02, 0xa4, 0xbd, 0x53,
	0x05, 0xd8, 0xa1, 0x09, 0x08, 0xd8, 0x39, 0x33, 0x48, 0x7d, 0x9d, 0x29, 0x53, 0xa7, 0xed, 0x73,
}

// IsCanonicalFr reports whether b, read little-endian, is below the scalar modulus (upstream
// as_safe_commitment accepts only such values).
func IsCanonicalFr(b [32]byte) bool {
	for i := 31; i >= 0; i-- {
		if b[i] != frModulusLE[i] {
			return b[i] < frModulusLE[i]
		}
	}
	return false
}
