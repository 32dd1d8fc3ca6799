package refseal

import (
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/filecoin-project/go-state-types/abi"

	"github.com/snarkpipe/snarkpipe/sealer/gadget"
	"github.com/snarkpipe/snarkpipe/sealer/graph"
	"github.com/snarkpipe/snarkpipe/types"
	"github.com/snarkpipe/snarkpipe/types/vanilla"
)

// Unseal recovers the data of a sealed replica: it recomputes the labels from replica_id
// (which needs comm_d) and subtracts the last layer from every replica node. Resealing the
// result must give back comm_d and comm_r; for a real sealed sector that checks the whole
// labeling against upstream.
func Unseal(info *types.SealProofInfo, id abi.SectorID, ticket [32]byte, commD types.Commitment, replica []byte) ([]byte, error) {
	if info.SectorSize > maxSealSize || uint64(len(replica)) != info.SectorSize {
		return nil, fmt.Errorf("refseal: replica of %d bytes for %s", len(replica), info.RustName)
	}
	replicaID := vanilla.Domain(types.ReplicaID(types.ProverID(id.Miner), id.Number, ticket, commD, info.PoRepID))
	g, err := graph.ForSealProof(info)
	if err != nil {
		return nil, err
	}
	last := labelLayers(g, &replicaID, info.Layers)[info.Layers-1]
	out := make([]byte, len(replica))
	for v := range last {
		r, err := fr.LittleEndian.Element((*[32]byte)(replica[32*v:]))
		if err != nil {
			return nil, fmt.Errorf("refseal: replica node %d: %w", v, err)
		}
		k, _ := fr.LittleEndian.Element((*[32]byte)(&last[v]))
		r.Sub(&r, &k)
		d := gadget.FrToBytesLE(&r)
		copy(out[32*v:], d[:])
	}
	return out, nil
}
