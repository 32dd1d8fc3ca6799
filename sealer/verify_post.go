package sealer

import (
	"fmt"

	"github.com/filecoin-project/go-state-types/abi"

	"github.com/snarkpipe/snarkpipe/sealer/graph"
	"github.com/snarkpipe/snarkpipe/types"
	"github.com/snarkpipe/snarkpipe/types/vanilla"
)

// PoStSector is a challenged sector as the chain knows it.
type PoStSector struct {
	Number abi.SectorNumber
	CommR  types.Commitment
}

// PoStPublic is what a PoSt vanilla proof is checked against.
type PoStPublic struct {
	Proof *types.PoStProofInfo
	// Randomness is the chain randomness as lotus passes it; it is masked (`[31] &= 0x3f`)
	// before challenges are derived.
	Randomness []byte
	// Sectors are the challenged sectors, in proof order: one for Winning, the sectors of
	// one partition (at most SectorsPerPartition) for Window.
	Sectors []PoStSector
	// Partition is the Window PoSt partition index; it numbers the challenges of V1_0_0 /
	// V1_1_0 proofs. 0 for Winning.
	Partition int
}

// VerifyPoSt checks the vanilla proofs of one Winning PoSt or one Window PoSt partition, one
// proof per public sector in the same order, as rust-fil-proofs' FallbackPoSt verifier does:
// sector id and comm_r match the public sector, comm_r = Poseidon2(comm_c, comm_r_last),
// and every inclusion proof opens the derived challenge, hashes to its root and has
// comm_r_last as its root. It also rejects a comm_r_last field that differs from the paths'
// root, which upstream ignores, so that every byte of the proof is checked.
func VerifyPoSt(pub *PoStPublic, proofs []*vanilla.FallbackPoStSectorProof) error {
	info := pub.Proof
	if info == nil {
		return postErr(-1, -1, nil, fail(CheckShape, "", "no proof type"))
	}
	rnd, ok := types.MaskRandomness(pub.Randomness)
	if !ok {
		return postErr(-1, -1, nil, fail(CheckShape, "randomness", "%d bytes, want 32", len(pub.Randomness)))
	}
	if n := len(pub.Sectors); n == 0 || n > info.SectorsPerPartition {
		return postErr(-1, -1, nil, fail(CheckShape, "", "%d public sectors, want 1..%d for %s", n, info.SectorsPerPartition, info.RustName))
	}
	if len(proofs) != len(pub.Sectors) {
		return postErr(-1, -1, nil, fail(CheckShape, "", "%d vanilla proofs for %d sectors", len(proofs), len(pub.Sectors)))
	}
	if pub.Partition < 0 || (info.Kind == types.PoStWinning && pub.Partition != 0) {
		return postErr(-1, -1, nil, fail(CheckShape, "", "partition %d", pub.Partition))
	}
	return forEachIndex(len(proofs), func(i int) error {
		sectorIndex := pub.Partition*info.SectorsPerPartition + i
		return verifyPoStSector(info, rnd, &pub.Sectors[i], proofs[i], sectorIndex, i, pub.Partition)
	})
}

func verifyPoStSector(info *types.PoStProofInfo, rnd [32]byte, sector *PoStSector, p *vanilla.FallbackPoStSectorProof, sectorIndex, pos, partition int) error {
	located := func(challenge int, node *uint64, f *failure) error {
		e := postErr(challenge, pos, node, f)
		e.HasSector, e.Sector = true, uint64(sector.Number)
		if info.Kind == types.PoStWindow {
			e.Partition = partition
		}
		return e
	}
	if p.SectorID != uint64(sector.Number) {
		return located(-1, nil, fail(CheckSector, "sector_id", "proof is for sector %d", p.SectorID))
	}
	if p.CommR != vanilla.Domain(sector.CommR) {
		return located(-1, nil, fail(CheckSector, "comm_r", "proof comm_r %x, sector comm_r %x", p.CommR[:], sector.CommR[:]))
	}
	if err := p.Validate(info); err != nil {
		return located(-1, nil, fail(CheckShape, "", "%v", err))
	}
	s := &p.Sectors[0]
	got, f := commR(&s.CommC, &s.CommRLast)
	if f != nil {
		return located(-1, nil, f)
	}
	if got != p.CommR {
		return located(-1, nil, fail(CheckCommR, "", "Poseidon2(comm_c, comm_r_last) = %x, comm_r %x", got[:], p.CommR[:]))
	}
	challenges, err := graph.PoStSectorChallenges(info, rnd, p.SectorID, sectorIndex)
	if err != nil {
		return located(-1, nil, fail(CheckCanonical, "randomness", "%v", err))
	}
	tree := treeR(info.SectorShape)
	for n := range s.InclusionProofs {
		ip := &s.InclusionProofs[n]
		if ip.Root != s.CommRLast {
			return located(n, &challenges[n], fail(CheckRoot, "tree R path", "root %x, comm_r_last %x", ip.Root[:], s.CommRLast[:]))
		}
		if f := tree.verify(ip, challenges[n], "tree R path"); f != nil {
			return located(n, &challenges[n], f)
		}
	}
	return nil
}

func postErr(challenge, pos int, node *uint64, f *failure) *VerifyError {
	e := &VerifyError{Kind: KindPoSt, Partition: -1, Challenge: challenge, Position: pos, Check: f.check, Where: f.where, Detail: f.detail}
	if node != nil {
		e.HasNode, e.Node = true, *node
	}
	return e
}

// PoStSectorsFromProofs lists the sectors a set of vanilla proofs claims to prove. Use it
// only where no chain state exists (tests, benchmarks): it trusts the proofs' own comm_r.
func PoStSectorsFromProofs(proofs []*vanilla.FallbackPoStSectorProof) []PoStSector {
	out := make([]PoStSector, len(proofs))
	for i, p := range proofs {
		out[i] = PoStSector{Number: abi.SectorNumber(p.SectorID), CommR: types.Commitment(p.CommR)}
	}
	return out
}

// String renders the public sector for logs.
func (s PoStSector) String() string { return fmt.Sprintf("sector %d comm_r %x", s.Number, s.CommR[:]) }
