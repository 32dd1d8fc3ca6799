package types

import (
	"fmt"

	commcid "github.com/filecoin-project/go-fil-commcid"
	"github.com/ipfs/go-cid"
)

// CommRToCID converts a 32-byte comm_r into its sealed-sector CID (Poseidon BLS12-381 tree).
func CommRToCID(commR Commitment) (cid.Cid, error) {
	return commcid.ReplicaCommitmentV1ToCID(commR[:])
}

// CIDToCommR extracts comm_r from a sealed-sector CID; any other kind of CID is an error.
func CIDToCommR(c cid.Cid) (Commitment, error) {
	b, err := commcid.CIDToReplicaCommitmentV1(c)
	if err != nil {
		return Commitment{}, fmt.Errorf("types: sealed CID: %w", err)
	}
	return toCommitment(b)
}

// CommDToCID converts a 32-byte comm_d into its unsealed-sector (piece v1) CID.
func CommDToCID(commD Commitment) (cid.Cid, error) {
	return commcid.DataCommitmentV1ToCID(commD[:])
}

// CIDToCommD extracts comm_d from an unsealed-sector (piece v1) CID.
func CIDToCommD(c cid.Cid) (Commitment, error) {
	b, err := commcid.CIDToDataCommitmentV1(c)
	if err != nil {
		return Commitment{}, fmt.Errorf("types: unsealed CID: %w", err)
	}
	return toCommitment(b)
}

func toCommitment(b []byte) (Commitment, error) {
	var c Commitment
	if len(b) != len(c) {
		return c, fmt.Errorf("types: commitment of %d bytes, want 32", len(b))
	}
	copy(c[:], b)
	return c, nil
}
