package refseal

import (
	"github.com/snarkpipe/snarkpipe/types"
	"github.com/snarkpipe/snarkpipe/types/vanilla"
)

// PatternUpdate is a reference update of a small sector (Update's size limit) with
// deterministic contents: the old replica and the new data are byte patterns derived from
// seed, with every node's top bits cleared as fr32 padding leaves them, and comm_c is
// derived from seed too; h is the type's default. It gives tests and examples a valid
// ProveReplicaUpdate2 input without sealing anything.
func PatternUpdate(info *types.UpdateProofInfo, seed byte) (*SectorUpdate, error) {
	nodes := func(salt byte) []byte {
		b := make([]byte, info.SectorSize)
		for i := range b {
			b[i] = byte(i*29) ^ seed ^ salt
		}
		for i := 31; i < len(b); i += 32 {
			b[i] &= 0x3f // every 32-byte node a canonical field element
		}
		return b
	}
	commC := vanilla.Domain{seed, 8, 9}
	return Update(info, commC, nodes(0x11), nodes(0x22), info.HDefault)
}

// EncodedPartitionProofs returns the vanilla partition proofs in the form lotus-miner and
// Curio send them (one bincode PartitionProof per partition).
func (u *SectorUpdate) EncodedPartitionProofs() ([][]byte, error) {
	proofs, err := u.PartitionProofs()
	if err != nil {
		return nil, err
	}
	out := make([][]byte, len(proofs))
	for i, p := range proofs {
		out[i] = vanilla.EncodeUpdatePartitionProof(p)
	}
	return out, nil
}
