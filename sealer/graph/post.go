package graph

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"

	"github.com/snarkpipe/snarkpipe/types"
)

// PoStChallengeIndex is upstream's get_challenge_index: V1_0_0/V1_1_0 number challenges across
// the sectors of the proof (sector_index·count + n), V1_2_0 restarts at 0 for every sector
// (the grinding fix).
func PoStChallengeIndex(api types.APIVersion, sectorIndex, count, n int) uint64 {
	if api == types.APIVersion1_2_0 {
		return uint64(n)
	}
	return uint64(sectorIndex*count + n)
}

// PoStLeafChallenge is the challenged leaf: u64_le(SHA-256(randomness ‖ u64_le(sector_id) ‖
// u64_le(ci))[..8]) mod (sector_size / 32). The randomness must already be masked.
func PoStLeafChallenge(sectorSize uint64, randomness [32]byte, sectorID, ci uint64) uint64 {
	h := sha256.New()
	h.Write(randomness[:])
	h.Write(binary.LittleEndian.AppendUint64(nil, sectorID))
	h.Write(binary.LittleEndian.AppendUint64(nil, ci))
	d := h.Sum(nil)
	return binary.LittleEndian.Uint64(d[:8]) % (sectorSize / types.NodeSize)
}

// PoStSectorChallenges returns the leaf challenges of one sector at position sectorIndex of
// the proof (partition·sectors_per_partition + position; 0 for Winning), as
// generate_fallback_sector_challenges computes them. randomness must be a canonical Fr
// (mask it with types.MaskFr first).
func PoStSectorChallenges(info *types.PoStProofInfo, randomness [32]byte, sectorID uint64, sectorIndex int) ([]uint64, error) {
	if !types.IsCanonicalFr(randomness) {
		return nil, fmt.Errorf("graph: PoSt randomness %x is not a canonical field element", randomness)
	}
	out := make([]uint64, info.ChallengesPerSector)
	for n := range out {
		ci := PoStChallengeIndex(info.APIVersion, sectorIndex, info.ChallengesPerSector, n)
		out[n] = PoStLeafChallenge(info.SectorSize, randomness, sectorID, ci)
	}
	return out, nil
}

// WinningSectorChallenge picks which sector of a set of setLen a Winning PoSt proves:
// u64_le(SHA-256(prover_id ‖ randomness ‖ u64_le(n))[..8]) mod setLen.
func WinningSectorChallenge(proverID, randomness [32]byte, n int, setLen uint64) uint64 {
	h := sha256.New()
	h.Write(proverID[:])
	h.Write(randomness[:])
	h.Write(binary.LittleEndian.AppendUint64(nil, uint64(n)))
	d := h.Sum(nil)
	return binary.LittleEndian.Uint64(d[:8]) % setLen
}

// PoStPartitionChallenges returns the leaf challenges of every sector of one partition, in
// order: sector i of partition k sits at sector index k·SectorsPerPartition + i. sectorIDs are
// the partition's sectors (at most SectorsPerPartition of them).
func PoStPartitionChallenges(info *types.PoStProofInfo, randomness [32]byte, sectorIDs []uint64, partition int) ([][]uint64, error) {
	if len(sectorIDs) > info.SectorsPerPartition || partition < 0 {
		return nil, fmt.Errorf("graph: %d sectors in partition %d, at most %d", len(sectorIDs), partition, info.SectorsPerPartition)
	}
	out := make([][]uint64, len(sectorIDs))
	for i, id := range sectorIDs {
		c, err := PoStSectorChallenges(info, randomness, id, partition*info.SectorsPerPartition+i)
		if err != nil {
			return nil, err
		}
		out[i] = c
	}
	return out, nil
}
