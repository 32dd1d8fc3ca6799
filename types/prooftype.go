package types

import (
	"encoding/binary"
	"fmt"

	"github.com/filecoin-project/go-state-types/abi"
)

// APIVersion is rust-fil-proofs' ApiVersion. It selects the DRG parent ordering, the expander
// truncation and the PoSt challenge indexing.
type APIVersion uint8

// API versions, in upstream order.
const (
	APIVersion1_0_0 APIVersion = iota
	APIVersion1_1_0
	APIVersion1_2_0
)

// String returns upstream's serde name ("V1_0_0", ...), as used in seal regression records.
func (v APIVersion) String() string {
	switch v {
	case APIVersion1_0_0:
		return "V1_0_0"
	case APIVersion1_1_0:
		return "V1_1_0"
	case APIVersion1_2_0:
		return "V1_2_0"
	}
	return fmt.Sprintf("APIVersion(%d)", uint8(v))
}

// ParseAPIVersion is the inverse of String.
func ParseAPIVersion(s string) (APIVersion, error) {
	for v := APIVersion1_0_0; v <= APIVersion1_2_0; v++ {
		if v.String() == s {
			return v, nil
		}
	}
	return 0, fmt.Errorf("types: unknown api version %q", s)
}

// ChallengeMode is how PoRep challenges are derived (the api feature of the seal proof).
type ChallengeMode uint8

// Challenge modes. Synthetic and NonInteractive are upstream's ApiFeature values.
const (
	ChallengeInteractive ChallengeMode = iota
	ChallengeSynthetic
	ChallengeNonInteractive
)

// String names the mode as upstream's ApiFeature serde name (empty for interactive).
func (m ChallengeMode) String() string {
	switch m {
	case ChallengeInteractive:
		return "Interactive"
	case ChallengeSynthetic:
		return "SyntheticPoRep"
	case ChallengeNonInteractive:
		return "NonInteractivePoRep"
	}
	return fmt.Sprintf("ChallengeMode(%d)", uint8(m))
}

// TreeShape is the arity triple (base, sub, top) of tree R and tree C; 0 means "no such level".
type TreeShape struct{ Base, Sub, Top int }

// String renders the shape as it appears in parameter names ("8-8-0").
func (t TreeShape) String() string { return fmt.Sprintf("%d-%d-%d", t.Base, t.Sub, t.Top) }

// SectorShape holds the values that depend only on the sector size.
type SectorShape struct {
	SectorSize uint64
	Label      string // short size label used in circuit ids: "2k", "8m", "512m", "32g", "64g"
	RustLabel  string // size as in upstream enum names: "2KiB", ...
	Layers     int
	Tree       TreeShape
	// Interactive partitions and minimum challenge counts (V1, V1_1, synthetic).
	Partitions    int
	MinChallenges int
	// Non-interactive partitions and minimum challenge counts.
	NIPartitions    int
	NIMinChallenges int
	// Window PoSt sectors per partition (upstream WINDOW_POST_SECTOR_COUNT).
	WindowSectorsPerPartition int
}

// Nodes is the number of 32-byte nodes of the sector.
func (s SectorShape) Nodes() uint64 { return s.SectorSize / NodeSize }

// NodeSize is the size in bytes of one SDR node (and one Fr element).
const NodeSize = 32

// MaxChallengesPerPartition is upstream's MAX_CHALLENGES_PER_PARTITION.
const MaxChallengesPerPartition = 18

// SinglePartitionProofLen is the size of one Groth16 partition proof.
const SinglePartitionProofLen = 192

// Sector sizes of the five production shapes.
const (
	SectorSize2KiB   = 2 << 10
	SectorSize8MiB   = 8 << 20
	SectorSize512MiB = 512 << 20
	SectorSize32GiB  = 32 << 30
	SectorSize64GiB  = 64 << 30
)

// sectorShapes lists the production shapes, in registered-proof order (id % 5).
// Sources: rust-fil-proofs filecoin-proofs/src/constants.rs (partitions, layers, shapes,
// minimum challenges, window sector counts).
var sectorShapes = [5]SectorShape{
	{SectorSize2KiB, "2k", "2KiB", 2, TreeShape{8, 0, 0}, 1, 2, 13, 26, 2},
	{SectorSize8MiB, "8m", "8MiB", 2, TreeShape{8, 0, 0}, 1, 2, 13, 26, 2},
	{SectorSize512MiB, "512m", "512MiB", 2, TreeShape{8, 0, 0}, 1, 2, 13, 26, 2},
	{SectorSize32GiB, "32g", "32GiB", 11, TreeShape{8, 8, 0}, 10, 176, 126, 2253, 2349},
	{SectorSize64GiB, "64g", "64GiB", 11, TreeShape{8, 8, 2}, 10, 176, 126, 2253, 2300},
}

// SectorShapeOf returns the production shape of a sector size.
func SectorShapeOf(sectorSize uint64) (SectorShape, error) {
	for _, s := range sectorShapes {
		if s.SectorSize == sectorSize {
			return s, nil
		}
	}
	return SectorShape{}, fmt.Errorf("types: unsupported sector size %d", sectorSize)
}

// SealProofInfo is one row of the seal proof table.
type SealProofInfo struct {
	ID        abi.RegisteredSealProof
	RustName  string // upstream RegisteredSealProof variant name (serde string in C1 output)
	ShapeName string // VanillaSealProof enum key: always the V1 name of the size
	SectorShape
	APIVersion APIVersion
	Mode       ChallengeMode
	// PartitionCount and ChallengesPerPartition are the effective values for this proof type.
	PartitionCount         int
	ChallengesPerPartition int
	PoRepID                [32]byte
	// CircuitID names the R1CS (and parameter set): all seal types of one size share it.
	CircuitID string
	// ProofLen is the byte length of the on-chain proof (partitions×192, or the SnarkPack
	// aggregate size for NI).
	ProofLen int
	// Provable says whether snarkpipe accepts this proof type for proving. It is false for
	// NI-PoRep, whose on-chain proof is a SnarkPack aggregate of the partition proofs, which
	// snarkpipe does not implement. (The circuits themselves come from sealer/porep.)
	Provable bool
}

// TotalChallenges is the number of challenges of one proof (all partitions).
func (p *SealProofInfo) TotalChallenges() int { return p.PartitionCount * p.ChallengesPerPartition }

// ParamIdentifier is upstream's parameter-set identifier string of the PoRep circuit
// (rust-fil-proofs StackedDrg PublicParams::identifier).
func (p *SealProofInfo) ParamIdentifier() string {
	return fmt.Sprintf("layered_drgporep::PublicParams{ graph: %s, challenges: LayerChallenges { layers: %d, max_count: %d }, tree: %s }",
		GraphIdentifier(p.Nodes()), p.Layers, p.ChallengesPerPartition, treeDisplay(p.Tree))
}

// ParamPrefix is the file-name prefix of the PoRep parameter files.
func (p *SealProofInfo) ParamPrefix() string {
	return "stacked-proof-of-replication-" + treeDisplay(p.Tree) + "-sha256_hasher"
}

// ParamFileName returns the official parameter file name with the given extension
// ("params", "vk" or "meta").
func (p *SealProofInfo) ParamFileName(ext string) string {
	return paramFileName(p.ParamPrefix(), p.ParamIdentifier(), ext)
}

// GraphIdentifier is upstream's StackedGraph identifier for a graph of the given node count.
func GraphIdentifier(nodes uint64) string {
	return fmt.Sprintf("stacked_graph::StackedGraph{expansion_degree: 8 base_graph: drgraph::BucketGraph{size: %d; degree: 6; hasher: poseidon_hasher} }", nodes)
}

func treeDisplay(t TreeShape) string { return "merkletree-poseidon_hasher-" + t.String() }

// niProofLen is the SnarkPack v2 aggregate size of an NI-PoRep proof (go-state-types
// SealProofInfos): test sizes aggregate 13 proofs, production sizes 126.
func niProofLen(shape SectorShape) int {
	if shape.NIPartitions == 126 {
		return 23092
	}
	return 14164
}

// PoRepID returns upstream's porep_id of a registered seal proof: id as u64 LE, nonce 0.
func PoRepID(id abi.RegisteredSealProof) [32]byte {
	var out [32]byte
	binary.LittleEndian.PutUint64(out[0:8], uint64(id))
	return out
}

var sealProofs = buildSealProofs()

func buildSealProofs() [20]SealProofInfo {
	var out [20]SealProofInfo
	for id := 0; id < 20; id++ {
		shape := sectorShapes[id%5]
		info := SealProofInfo{
			ID:          abi.RegisteredSealProof(id),
			ShapeName:   "StackedDrg" + shape.RustLabel + "V1",
			SectorShape: shape,
			PoRepID:     PoRepID(abi.RegisteredSealProof(id)),
			CircuitID:   "porep-" + shape.Label,
			Provable:    true,
		}
		partitions, minChallenges := shape.Partitions, shape.MinChallenges
		switch id / 5 {
		case 0:
			info.RustName, info.APIVersion = info.ShapeName, APIVersion1_0_0
		case 1:
			info.RustName, info.APIVersion = info.ShapeName+"_1", APIVersion1_1_0
		case 2:
			info.RustName, info.APIVersion = info.ShapeName+"_1_Feat_SyntheticPoRep", APIVersion1_2_0
			info.Mode = ChallengeSynthetic
		case 3:
			info.RustName, info.APIVersion = "StackedDrg"+shape.RustLabel+"V1_2_Feat_NonInteractivePoRep", APIVersion1_2_0
			info.Mode = ChallengeNonInteractive
			partitions, minChallenges = shape.NIPartitions, shape.NIMinChallenges
			info.Provable = false
		}
		info.PartitionCount = partitions
		info.ChallengesPerPartition = (minChallenges + partitions - 1) / partitions
		info.ProofLen = partitions * SinglePartitionProofLen
		if info.Mode == ChallengeNonInteractive {
			info.ProofLen = niProofLen(shape)
		}
		out[id] = info
	}
	return out
}

// SealProof returns the table row of a registered seal proof, or an error for an unknown id.
func SealProof(id abi.RegisteredSealProof) (*SealProofInfo, error) {
	if id < 0 || int(id) >= len(sealProofs) {
		return nil, fmt.Errorf("types: unknown registered seal proof %d", int64(id))
	}
	return &sealProofs[id], nil
}

// SealProofByRustName finds a seal proof by its upstream serde name ("StackedDrg32GiBV1_1").
func SealProofByRustName(name string) (*SealProofInfo, error) {
	for i := range sealProofs {
		if sealProofs[i].RustName == name {
			return &sealProofs[i], nil
		}
	}
	return nil, fmt.Errorf("types: unknown seal proof name %q", name)
}

// SealProofs returns every row of the table, ids 0–19 in order. The slice is a copy.
func SealProofs() []SealProofInfo { return append([]SealProofInfo(nil), sealProofs[:]...) }
