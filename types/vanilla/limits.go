package vanilla

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
