package refseal

import (
	"fmt"

	"github.com/filecoin-project/go-state-types/abi"

	"github.com/snarkpipe/snarkpipe/sealer/graph"
	"github.com/snarkpipe/snarkpipe/types"
	"github.com/snarkpipe/snarkpipe/types/vanilla"
)

// PoStReplica is what PoSt vanilla proofs are built from: a sealed sector's number, comm_c
// and tree R (comm_r_last is its root).
type PoStReplica struct {
	Number    abi.SectorNumber
	CommC     vanilla.Domain
	CommRLast vanilla.Domain
	CommR     vanilla.Domain
	treeR     *tree
}

// NewPoStReplica builds tree R over a sealed replica (as stored on disk: sector-size bytes
// of little-endian field elements) whose comm_c is known (p_aux holds it).
func NewPoStReplica(shape types.SectorShape, number abi.SectorNumber, commC vanilla.Domain, replica []byte) (*PoStReplica, error) {
	if uint64(len(replica)) != shape.SectorSize {
		return nil, fmt.Errorf("refseal: replica of %d bytes for a %d-byte sector", len(replica), shape.SectorSize)
	}
	leaves := make([]vanilla.Domain, shape.Nodes())
	for i := range leaves {
		copy(leaves[i][:], replica[32*i:])
	}
	t, err := buildDenseTree(false, shape.Tree, leaves)
	if err != nil {
		return nil, err
	}
	return newPoStReplica(number, commC, t)
}

func newPoStReplica(number abi.SectorNumber, commC vanilla.Domain, t *tree) (*PoStReplica, error) {
	r := &PoStReplica{Number: number, CommC: commC, CommRLast: t.Root(), treeR: t}
	var err error
	if r.CommR, err = hashPair(&r.CommC, &r.CommRLast); err != nil {
		return nil, err
	}
	return r, nil
}

// PoStReplica returns the PoSt view of a sealed sector.
func (s *Sector) PoStReplica() *PoStReplica {
	return &PoStReplica{Number: s.ID.Number, CommC: s.CommC, CommRLast: s.CommRLast, CommR: s.CommR, treeR: s.treeR}
}

// Vanilla is the sector's FallbackPoStSectorProof (generate_single_vanilla_proof) for the
// given PoSt type and chain randomness; sectorIndex is the sector's position in the whole
// proof (partition·sectors_per_partition + position; 0 for Winning).
func (r *PoStReplica) Vanilla(info *types.PoStProofInfo, randomness []byte, sectorIndex int) (*vanilla.FallbackPoStSectorProof, error) {
	if info.SectorSize != uint64(r.treeR.leafCount())*types.NodeSize {
		return nil, fmt.Errorf("refseal: %s proof for a sector of %d nodes", info.RustName, r.treeR.leafCount())
	}
	rnd, ok := types.MaskRandomness(randomness)
	if !ok {
		return nil, fmt.Errorf("refseal: randomness of %d bytes, want 32", len(randomness))
	}
	challenges, err := graph.PoStSectorChallenges(info, rnd, uint64(r.Number), sectorIndex)
	if err != nil {
		return nil, err
	}
	sp := vanilla.PoStSectorProof{CommC: r.CommC, CommRLast: r.CommRLast}
	for _, c := range challenges {
		sp.InclusionProofs = append(sp.InclusionProofs, r.treeR.Proof(c))
	}
	return &vanilla.FallbackPoStSectorProof{SectorID: uint64(r.Number), CommR: r.CommR, Sectors: []vanilla.PoStSectorProof{sp}}, nil
}

// leafCount is the number of leaves of the tree.
func (t *tree) leafCount() uint64 {
	n := uint64(1)
	for _, a := range t.arities {
		n *= uint64(a)
	}
	return n
}
