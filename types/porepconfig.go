package types

import "fmt"

// PoRepConfig is upstream's PoRepConfig: what the graph and the challenges depend on. Registered
// proofs have one each (SealProofInfo.Config); upstream tests, such as the seal regression
// records, also use porep ids outside the registered table.
type PoRepConfig struct {
	SectorSize uint64
	Partitions int
	PoRepID    [32]byte
	APIVersion APIVersion
	Mode       ChallengeMode
}

// Config returns the PoRep configuration of a registered seal proof.
func (p *SealProofInfo) Config() PoRepConfig {
	return PoRepConfig{SectorSize: p.SectorSize, Partitions: p.PartitionCount, PoRepID: p.PoRepID, APIVersion: p.APIVersion, Mode: p.Mode}
}

// ChallengesPerPartition is ceil(minimum challenges / partitions) for the configuration's
// sector size and challenge mode (rust-fil-proofs parameters.rs select_challenges).
func (c PoRepConfig) ChallengesPerPartition() (int, error) {
	shape, err := SectorShapeOf(c.SectorSize)
	if err != nil {
		return 0, err
	}
	if c.Partitions <= 0 {
		return 0, fmt.Errorf("types: %d partitions", c.Partitions)
	}
	minimum := shape.MinChallenges
	if c.Mode == ChallengeNonInteractive {
		minimum = shape.NIMinChallenges
	}
	n := (minimum + c.Partitions - 1) / c.Partitions
	if n > MaxChallengesPerPartition {
		return 0, fmt.Errorf("types: %d challenges per partition exceed %d", n, MaxChallengesPerPartition)
	}
	return n, nil
}

// ParseFeatures maps upstream's api_features list to the challenge mode.
func ParseFeatures(features []string) (ChallengeMode, error) {
	switch {
	case len(features) == 0:
		return ChallengeInteractive, nil
	case len(features) == 1 && features[0] == ChallengeSynthetic.String():
		return ChallengeSynthetic, nil
	case len(features) == 1 && features[0] == ChallengeNonInteractive.String():
		return ChallengeNonInteractive, nil
	}
	return 0, fmt.Errorf("types: unsupported api features %q", features)
}
