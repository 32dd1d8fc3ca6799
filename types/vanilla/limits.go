package vanilla

import "github.com/snarkpipe/snarkpipe/types"

// Limits bound the counts a decoder accepts before it allocates. The defaults are the largest
// values any registered seal or PoSt proof type needs; a proof-type shape check (Validate)
// then demands the exact counts.
type Limits struct {
	Partitions             int // C1: outer list (NI-PoRep 32/64 GiB: 126)
	ChallengesPerPartition int // C1: inner list (18)
	Layers                 int // labeling proofs and column rows (11)
	Parents                int // labeling/encoding proof parents (TOTAL_PARENTS = 37)
	PathElements           int // Merkle path length of one (sub)tree (tree D of 64 GiB: 31)
	PathHashes             int // siblings per path element (arity 8: 7)
	PoStSectors            int // PoSt: sector proofs in one vanilla proof
	InclusionProofs        int // PoSt: challenged leaves of one sector (Winning: 66)
	PoStList               int // PoSt: vanilla proofs in one list (a Window partition: 2349)
}

// DefaultLimits returns the limits of the largest supported proof types.
func DefaultLimits() Limits {
	return Limits{
		Partitions:             126,
		ChallengesPerPartition: 18,
		Layers:                 11,
		Parents:                37,
		PathElements:           32,
		PathHashes:             7,
		PoStSectors:            1,
		InclusionProofs:        66,
		PoStList:               2349,
	}
}

// SealLimits returns the exact counts a C1 output of the given seal proof type may hold. The
// JSON decoder switches to them as soon as it has read registered_proof (the first field in
// upstream's order), so an oversized proof of a small type is refused while it is read.
func SealLimits(info *types.SealProofInfo) Limits {
	lim := DefaultLimits()
	lim.Partitions = info.PartitionCount
	lim.ChallengesPerPartition = info.ChallengesPerPartition
	lim.Layers = info.Layers
	lim.PathElements = max(TreeDDepth(info.SectorShape).BaseLevels, TreeRDepth(info.SectorShape).BaseLevels)
	return lim
}

// PoStLimits returns the exact counts a vanilla proof of the given PoSt type may hold.
func PoStLimits(info *types.PoStProofInfo) Limits {
	lim := DefaultLimits()
	lim.InclusionProofs = info.ChallengesPerSector
	lim.PathElements = TreeRDepth(info.SectorShape).BaseLevels
	lim.PoStList = info.SectorsPerPartition
	return lim
}
