package main

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/filecoin-project/go-state-types/abi"
	"github.com/ipfs/go-cid"

	"github.com/snarkpipe/snarkpipe/types"
	"github.com/snarkpipe/snarkpipe/types/vanilla"
)

// postPub is Curio's proof.WindowPoStVerifyInfo as its test fixtures store it (postpub.json),
// with ProofBytes empty: the vanilla proofs travel in a separate file.
type postPub struct {
	Randomness []byte
	Proofs     []postPubProof
	// ChallengedSectors are the sectors in proof order.
	ChallengedSectors []postPubSector
	Prover            abi.ActorID
}

type postPubProof struct {
	PoStProof  abi.RegisteredPoStProof
	ProofBytes []byte
}

type postPubSector struct {
	SealProof    abi.RegisteredSealProof
	SectorNumber abi.SectorNumber
	SealedCID    cid.Cid
}

// sealProofForPoSt is the interactive V1_1 seal proof of the PoSt type's sector size, which
// the challenged sectors are labelled with.
func sealProofForPoSt(info *types.PoStProofInfo) (abi.RegisteredSealProof, error) {
	for _, s := range types.SealProofs() {
		if s.SectorSize == info.SectorSize && s.APIVersion == types.APIVersion1_1_0 {
			return s.ID, nil
		}
	}
	return 0, fmt.Errorf("no seal proof of %d-byte sectors", info.SectorSize)
}

func newPostPub(info *types.PoStProofInfo, randomness []byte, miner abi.ActorID, numbers []abi.SectorNumber, commRs []types.Commitment) (*postPub, error) {
	sp, err := sealProofForPoSt(info)
	if err != nil {
		return nil, err
	}
	pub := &postPub{Randomness: randomness, Proofs: []postPubProof{{PoStProof: info.ID}}, Prover: miner}
	for i, n := range numbers {
		c, err := types.CommRToCID(commRs[i])
		if err != nil {
			return nil, err
		}
		pub.ChallengedSectors = append(pub.ChallengedSectors, postPubSector{SealProof: sp, SectorNumber: n, SealedCID: c})
	}
	return pub, nil
}

// encodePoStList writes bincode Vec<FallbackPoStSectorProof>: a u64 LE count, then the proofs.
func encodePoStList(proofs []*vanilla.FallbackPoStSectorProof) []byte {
	out := make([]byte, 8, 8+len(proofs)*4096)
	n := uint64(len(proofs))
	for i := range 8 {
		out[i] = byte(n >> (8 * i))
	}
	for _, p := range proofs {
		out = append(out, vanilla.EncodePoStSectorProof(p)...)
	}
	return out
}

func writeJSON(path string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}
