package types

import (
	"fmt"

	"github.com/filecoin-project/go-state-types/abi"
)

// PoStKind tells Winning from Window PoSt.
type PoStKind uint8

// PoSt kinds.
const (
	PoStWinning PoStKind = iota
	PoStWindow
)

// String names the kind.
func (k PoStKind) String() string {
	if k == PoStWinning {
		return "Winning"
	}
	return "Window"
}

// Challenge counts of upstream filecoin-proofs/src/constants.rs.
const (
	WinningPoStChallengeCount = 66
	WinningPoStSectorCount    = 1
	WindowPoStChallengeCount  = 10
)

// PoStProofInfo is one row of the PoSt proof table.
type PoStProofInfo struct {
	ID abi.RegisteredPoStProof
	// RustName is the upstream variant name. Go's Window …V1_1 (ids 10–14) is upstream's
	// StackedDrgWindow…V1_2 (the grinding fix).
	RustName string
	Kind     PoStKind
	SectorShape
	APIVersion APIVersion
	// ChallengesPerSector is how many leaves of one sector are challenged: 66 Winning, 10 Window.
	ChallengesPerSector int
	// SectorsPerPartition is how many sectors one partition proves: 1 Winning, 2/2349/2300 Window.
	SectorsPerPartition int
	// CircuitChallengeCount and CircuitSectorCount are the circuit's parameters. Winning lays
	// its single sector into the circuit 66 times with one challenge each.
	CircuitChallengeCount int
	CircuitSectorCount    int
	CircuitID             string
	Provable              bool
}

// ParamIdentifier is upstream's FallbackPoSt PublicParams identifier.
func (p *PoStProofInfo) ParamIdentifier() string {
	return fmt.Sprintf("FallbackPoSt::PublicParams{sector_size: %d, challenge_count: %d, sector_count: %d}",
		p.SectorSize, p.CircuitChallengeCount, p.CircuitSectorCount)
}

// ParamPrefix is the file-name prefix of the PoSt parameter files.
func (p *PoStProofInfo) ParamPrefix() string {
	return "proof-of-spacetime-fallback-" + treeDisplay(p.Tree)
}

// ParamFileName returns the official parameter file name with the given extension.
func (p *PoStProofInfo) ParamFileName(ext string) string {
	return paramFileName(p.ParamPrefix(), p.ParamIdentifier(), ext)
}

var postProofs = buildPoStProofs()

func buildPoStProofs() [15]PoStProofInfo {
	var out [15]PoStProofInfo
	for id := 0; id < 15; id++ {
		shape := sectorShapes[id%5]
		info := PoStProofInfo{ID: abi.RegisteredPoStProof(id), SectorShape: shape, Provable: true}
		switch id / 5 {
		case 0:
			info.Kind, info.APIVersion = PoStWinning, APIVersion1_0_0
			info.RustName = "StackedDrgWinning" + shape.RustLabel + "V1"
		case 1:
			info.Kind, info.APIVersion = PoStWindow, APIVersion1_0_0
			info.RustName = "StackedDrgWindow" + shape.RustLabel + "V1"
		case 2:
			info.Kind, info.APIVersion = PoStWindow, APIVersion1_2_0
			info.RustName = "StackedDrgWindow" + shape.RustLabel + "V1_2"
		}
		if info.Kind == PoStWinning {
			info.ChallengesPerSector = WinningPoStChallengeCount
			info.SectorsPerPartition = WinningPoStSectorCount
			info.CircuitChallengeCount = 1
			info.CircuitSectorCount = WinningPoStChallengeCount
			info.CircuitID = "winning-" + shape.Label
		} else {
			info.ChallengesPerSector = WindowPoStChallengeCount
			info.SectorsPerPartition = shape.WindowSectorsPerPartition
			info.CircuitChallengeCount = WindowPoStChallengeCount
			info.CircuitSectorCount = shape.WindowSectorsPerPartition
			info.CircuitID = "wpost-" + shape.Label
		}
		out[id] = info
	}
	return out
}

// PoStProof returns the table row of a registered PoSt proof, or an error for an unknown id.
func PoStProof(id abi.RegisteredPoStProof) (*PoStProofInfo, error) {
	if id < 0 || int(id) >= len(postProofs) {
		return nil, fmt.Errorf("types: unknown registered PoSt proof %d", int64(id))
	}
	return &postProofs[id], nil
}

// PoStProofs returns every row of the PoSt table, ids 0–14 in order. The slice is a copy.
func PoStProofs() []PoStProofInfo { return append([]PoStProofInfo(nil), postProofs[:]...) }
