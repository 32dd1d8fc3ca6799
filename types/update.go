package types

import (
	"fmt"

	"github.com/filecoin-project/go-state-types/abi"
)

// RegisteredUpdateProof is the Filecoin numbering of SnapDeals (EmptySectorUpdate) proofs.
type RegisteredUpdateProof = abi.RegisteredUpdateProof

// UpdateHCount is the number of h values an update circuit hard-codes (upstream hs()).
const UpdateHCount = 6

// UpdateProofInfo is one row of the update proof table. Values from rust-fil-proofs
// storage-proofs-update/src/constants.rs (partition_count, challenge_count, hs, h_default,
// apex_leaf_count) and vanilla.rs (PublicParams identifier).
type UpdateProofInfo struct {
	ID       abi.RegisteredUpdateProof
	RustName string // upstream RegisteredUpdateProof variant name ("StackedDrg32GiBV1")
	SectorShape
	PartitionCount         int
	ChallengesPerPartition int
	ApexLeafCount          int
	// Hs are the allowed h values (high challenge bits hashed into rho); HDefault = Hs[3]
	// is the one every production prover uses.
	Hs       [UpdateHCount]int
	HDefault int
	// CircuitID names the R1CS: one per sector size.
	CircuitID string
	ProofLen  int // PartitionCount × 192
}

// UpdatePartitionCount is upstream partition_count(sector_nodes).
func UpdatePartitionCount(nodes uint64) int {
	switch {
	case nodes <= 1<<8: // 8 KiB
		return 1
	case nodes <= 1<<10: // 32 KiB
		return 2
	case nodes <= 1<<19: // 16 MiB
		return 4
	}
	return 16
}

// UpdateChallengeCount is upstream challenge_count(sector_nodes): challenges per partition.
func UpdateChallengeCount(nodes uint64) int {
	if nodes <= 1<<19 {
		return 10
	}
	return 86
}

// UpdateHs is upstream hs(sector_nodes).
func UpdateHs(nodes uint64) [UpdateHCount]int {
	if nodes <= 1<<10 {
		return [UpdateHCount]int{1, 1, 1, 1, 1, 1}
	}
	return [UpdateHCount]int{7, 8, 9, 10, 11, 12}
}

// UpdateApexLeafCount is upstream apex_leaf_count(sector_nodes).
func UpdateApexLeafCount(nodes uint64) int {
	if nodes <= 1<<8 {
		return 8
	}
	return 128
}

// ParamIdentifier is upstream's empty_sector_update PublicParams identifier.
func (p *UpdateProofInfo) ParamIdentifier() string {
	return fmt.Sprintf("empty_sector_update::PublicParams{ sector_nodes: %d }", p.Nodes())
}

// ParamPrefix is the file-name prefix of the update parameter files.
func (p *UpdateProofInfo) ParamPrefix() string {
	return "empty-sector-update-" + treeDisplay(p.Tree)
}

// ParamFileName returns the official parameter file name with the given extension.
func (p *UpdateProofInfo) ParamFileName(ext string) string {
	return paramFileName(p.ParamPrefix(), p.ParamIdentifier(), ext)
}

// HSelect returns the h_select public-input bits of h (1 << index of h in Hs); false when
// h is not allowed for the size.
func (p *UpdateProofInfo) HSelect(h int) (uint64, bool) {
	for i, v := range p.Hs {
		if v == h {
			return 1 << i, true
		}
	}
	return 0, false
}

var updateProofs = buildUpdateProofs()

func buildUpdateProofs() [5]UpdateProofInfo {
	var out [5]UpdateProofInfo
	for id := range out {
		shape := sectorShapes[id]
		nodes := shape.Nodes()
		info := UpdateProofInfo{
			ID:                     abi.RegisteredUpdateProof(id),
			RustName:               "StackedDrg" + shape.RustLabel + "V1",
			SectorShape:            shape,
			PartitionCount:         UpdatePartitionCount(nodes),
			ChallengesPerPartition: UpdateChallengeCount(nodes),
			ApexLeafCount:          UpdateApexLeafCount(nodes),
			Hs:                     UpdateHs(nodes),
			CircuitID:              "snap-" + shape.Label,
		}
		info.HDefault = info.Hs[3]
		info.ProofLen = info.PartitionCount * SinglePartitionProofLen
		out[id] = info
	}
	return out
}

// UpdateProof returns the table row of a registered update proof, or an error for an
// unknown id.
func UpdateProof(id abi.RegisteredUpdateProof) (*UpdateProofInfo, error) {
	if id < 0 || int(id) >= len(updateProofs) {
		return nil, fmt.Errorf("types: unknown registered update proof %d", int64(id))
	}
	return &updateProofs[id], nil
}

// UpdateProofForSeal returns the update proof that go-state-types pairs with a seal proof
// (same sector size).
func UpdateProofForSeal(seal abi.RegisteredSealProof) (*UpdateProofInfo, error) {
	info, err := SealProof(seal)
	if err != nil {
		return nil, err
	}
	for i := range updateProofs {
		if updateProofs[i].SectorSize == info.SectorSize {
			return &updateProofs[i], nil
		}
	}
	return nil, fmt.Errorf("types: no update proof for sector size %d", info.SectorSize)
}

// UpdateProofs returns every row of the update table, ids 0–4 in order. The slice is a copy.
func UpdateProofs() []UpdateProofInfo { return append([]UpdateProofInfo(nil), updateProofs[:]...) }
