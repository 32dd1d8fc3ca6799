package vanilla

import (
	"math/rand/v2"

	"github.com/snarkpipe/snarkpipe/types"
)

// Synthetic, correctly shaped vanilla proofs for tests. Values are random; only the layout
// follows the proof type (the hashes are not consistent).

func randDomain(rng *rand.Rand) (d Domain) {
	for i := range d {
		d[i] = byte(rng.UintN(256))
	}
	return d
}

func randDomains(rng *rand.Rand, n int) []Domain {
	out := make([]Domain, n)
	for i := range out {
		out[i] = randDomain(rng)
	}
	return out
}

func randLevels(rng *rand.Rand, levels, arity int) []PathElement {
	out := make([]PathElement, levels)
	for i := range out {
		out[i] = PathElement{Hashes: randDomains(rng, arity-1), Index: rng.Uint64N(uint64(arity))}
	}
	return out
}

func randMerkleProof(rng *rand.Rand, d TreeDepth) MerkleProof {
	p := MerkleProof{Kind: d.Kind, Root: randDomain(rng), Leaf: randDomain(rng)}
	p.Base = randLevels(rng, d.BaseLevels, d.Shape.Base)
	if d.Kind >= ProofSub {
		p.Sub = randLevels(rng, 1, d.Shape.Sub)
	}
	if d.Kind == ProofTop {
		p.Top = randLevels(rng, 1, d.Shape.Top)
	}
	return p
}

func randColumn(rng *rand.Rand, info *types.SealProofInfo, treeR TreeDepth) ColumnProof {
	return ColumnProof{Index: uint32(rng.Uint64N(info.Nodes())), Rows: randDomains(rng, info.Layers), InclusionProof: randMerkleProof(rng, treeR)}
}

func randLabeling(rng *rand.Rand, layer int, node uint64) LabelingProof {
	return LabelingProof{Parents: randDomains(rng, TotalParents), LayerIndex: uint32(layer), Node: node}
}

// syntheticC1 builds a C1 output of the right shape for the given proof type.
func syntheticC1(info *types.SealProofInfo, seed uint64) *SealCommitPhase1Output {
	rng := rand.New(rand.NewPCG(seed, 1))
	treeR, treeD := TreeRDepth(info.SectorShape), TreeDDepth(info.SectorShape)
	c := &SealCommitPhase1Output{
		RegisteredProof: info.RustName, ShapeName: info.ShapeName,
		CommR: randDomain(rng), CommD: randDomain(rng), ReplicaID: randDomain(rng), Seed: randDomain(rng), Ticket: randDomain(rng),
	}
	for k := 0; k < info.PartitionCount; k++ {
		var part []StackedProof
		for i := 0; i < info.ChallengesPerPartition; i++ {
			node := rng.Uint64N(info.Nodes())
			p := StackedProof{CommDProofs: randMerkleProof(rng, treeD), CommRLastProof: randMerkleProof(rng, treeR)}
			p.ReplicaColumnProofs.CX = randColumn(rng, info, treeR)
			for j := 0; j < 6; j++ {
				p.ReplicaColumnProofs.DrgParents = append(p.ReplicaColumnProofs.DrgParents, randColumn(rng, info, treeR))
			}
			for j := 0; j < 8; j++ {
				p.ReplicaColumnProofs.ExpParents = append(p.ReplicaColumnProofs.ExpParents, randColumn(rng, info, treeR))
			}
			for l := 1; l <= info.Layers; l++ {
				p.LabelingProofs = append(p.LabelingProofs, randLabeling(rng, l, node))
			}
			p.EncodingProof = randLabeling(rng, info.Layers, node)
			part = append(part, p)
		}
		c.VanillaProofs = append(c.VanillaProofs, part)
	}
	return c
}

// syntheticPoSt builds a PoSt vanilla proof of the right shape for the given PoSt type.
func syntheticPoSt(info *types.PoStProofInfo, seed uint64) *FallbackPoStSectorProof {
	rng := rand.New(rand.NewPCG(seed, 2))
	treeR := TreeRDepth(info.SectorShape)
	s := PoStSectorProof{CommC: randDomain(rng), CommRLast: randDomain(rng)}
	for i := 0; i < info.ChallengesPerSector; i++ {
		s.InclusionProofs = append(s.InclusionProofs, randMerkleProof(rng, treeR))
	}
	return &FallbackPoStSectorProof{SectorID: rng.Uint64(), CommR: randDomain(rng), Sectors: []PoStSectorProof{s}}
}
