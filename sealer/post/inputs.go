package post

import (
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/snarkpipe/snarkpipe/sealer/gadget"
	"github.com/snarkpipe/snarkpipe/sealer/graph"
	"github.com/snarkpipe/snarkpipe/types"
)

// PublicSector is a proven sector as the public inputs see it.
type PublicSector struct {
	ID    uint64
	CommR [32]byte
}

// circuitSectors returns the public sectors the circuit's partitions are cut from. Winning
// PoSt proves one sector laid into the circuit 66 times: upstream's verify_winning_post
// lists it 66 times, so copy i is "sector index" i and gets challenge index i.
func circuitSectors(info *types.PoStProofInfo, sectors []PublicSector) ([]PublicSector, error) {
	if info.Kind != types.PoStWinning {
		return sectors, nil
	}
	if len(sectors) != 1 {
		return nil, fmt.Errorf("post: Winning PoSt proves exactly 1 sector, got %d", len(sectors))
	}
	out := make([]PublicSector, info.CircuitSectorCount)
	for i := range out {
		out[i] = sectors[0]
	}
	return out, nil
}

// Partitions is the number of partitions proving n sectors.
func Partitions(info *types.PoStProofInfo, n int) int {
	if info.Kind == types.PoStWinning {
		return 1
	}
	return (n + info.CircuitSectorCount - 1) / info.CircuitSectorCount
}

// PublicInputs is FallbackPoStCompound::generate_public_inputs for partition k: for each
// sector of the partition its comm_r, then its challenged leaf indices; a partial
// partition repeats the last sector's inputs until it is full. ONE is not included.
// randomness must be a canonical field element (upstream as_safe_commitment).
func PublicInputs(info *types.PoStProofInfo, randomness [32]byte, sectors []PublicSector, k int) ([]fr.Element, error) {
	all, err := circuitSectors(info, sectors)
	if err != nil {
		return nil, err
	}
	per := info.CircuitSectorCount
	if k < 0 || k*per >= len(all) {
		return nil, fmt.Errorf("post: partition %d of %d sectors (%d per partition)", k, len(all), per)
	}
	if !types.IsCanonicalFr(randomness) {
		return nil, fmt.Errorf("post: randomness %x is not a canonical field element", randomness)
	}
	part := all[k*per : min((k+1)*per, len(all))]
	c := info.CircuitChallengeCount
	out := make([]fr.Element, 0, per*(1+c))
	for i, s := range part {
		commR, err := gadget.FrFromBytesLE(&s.CommR)
		if err != nil {
			return nil, fmt.Errorf("post: sector %d comm_r: %w", s.ID, err)
		}
		out = append(out, commR)
		sectorIndex := k*per + i
		for n := range c {
			ci := graph.PoStChallengeIndex(info.APIVersion, sectorIndex, c, n)
			var leaf fr.Element
			leaf.SetUint64(graph.PoStLeafChallenge(info.SectorSize, randomness, s.ID, ci))
			out = append(out, leaf)
		}
	}
	last := out[len(out)-(1+c):]
	for len(out) < per*(1+c) {
		out = append(out, last...)
	}
	return out, nil
}
