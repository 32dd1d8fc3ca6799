package vanilla

import (
	"fmt"

	"github.com/snarkpipe/snarkpipe/types"
)

// UpdatePartitionProof is rust-fil-proofs storage-proofs-update vanilla PartitionProof: one
// partition of a SnapDeals (EmptySectorUpdate) vanilla proof, as lotus and Curio send it
// (bincode, one blob per partition).
type UpdatePartitionProof struct {
	CommC           Domain
	ApexLeaves      []Domain // apex_leafs
	ChallengeProofs []UpdateChallengeProof
}

// UpdateChallengeProof is upstream's ChallengeProof: inclusion proofs of one challenged
// node in tree R old, tree D new and tree R new.
type UpdateChallengeProof struct {
	ROld, DNew, RNew MerkleProof
}

// Decoder bounds of update proofs (the largest values any size needs: 128 apex leaves, 86
// challenges per partition, 16 partitions).
const (
	maxApexLeaves        = 128
	maxUpdateChallenges  = 86
	maxUpdatePartitions  = 16
	minUpdateChallengeSz = 3 * minMerkleProofSize
)

// DecodeUpdatePartitionProof decodes one bincode PartitionProof with the default limits;
// trailing bytes are an error.
func DecodeUpdatePartitionProof(data []byte) (*UpdatePartitionProof, error) {
	return decodeUpdatePartitionProof(data, DefaultLimits())
}

func decodeUpdatePartitionProof(data []byte, lim Limits) (*UpdatePartitionProof, error) {
	r := &binReader{buf: data}
	p := &UpdatePartitionProof{}
	p.CommC = r.domain()
	p.ApexLeaves = r.domains(maxApexLeaves)
	n := r.length(maxUpdateChallenges, minUpdateChallengeSz)
	if r.err == nil {
		p.ChallengeProofs = make([]UpdateChallengeProof, n)
		for i := range p.ChallengeProofs {
			c := &p.ChallengeProofs[i]
			c.ROld = r.merkleProof(&lim)
			c.DNew = r.merkleProof(&lim)
			c.RNew = r.merkleProof(&lim)
		}
	}
	if r.err == nil && r.pos != len(r.buf) {
		r.fail(ErrMalformed, "%d trailing bytes", len(r.buf)-r.pos)
	}
	if r.err != nil {
		return nil, r.err
	}
	return p, nil
}

// DecodeUpdatePartitionProofFor decodes one partition proof of the given update type:
// paths longer than the type's trees are refused while reading, and the result is
// validated against the type.
func DecodeUpdatePartitionProofFor(info *types.UpdateProofInfo, data []byte) (*UpdatePartitionProof, error) {
	lim := DefaultLimits()
	lim.PathElements = max(TreeDDepth(info.SectorShape).BaseLevels, TreeRDepth(info.SectorShape).BaseLevels)
	p, err := decodeUpdatePartitionProof(data, lim)
	if err != nil {
		return nil, err
	}
	if err := p.Validate(info); err != nil {
		return nil, err
	}
	return p, nil
}

// DecodeUpdatePartitionProofs decodes the list form of ProveReplicaUpdate2 (one bincode blob
// per partition) for an update type; the count must equal the type's partitions.
func DecodeUpdatePartitionProofs(info *types.UpdateProofInfo, blobs [][]byte) ([]*UpdatePartitionProof, error) {
	if len(blobs) > maxUpdatePartitions {
		return nil, &DecodeError{Err: ErrLimit, Msg: fmt.Sprintf("%d partition proofs exceed %d", len(blobs), maxUpdatePartitions)}
	}
	if len(blobs) != info.PartitionCount {
		return nil, shapeErrorf("%d partition proofs, want %d for %s", len(blobs), info.PartitionCount, info.RustName)
	}
	out := make([]*UpdatePartitionProof, len(blobs))
	for k, b := range blobs {
		p, err := DecodeUpdatePartitionProofFor(info, b)
		if err != nil {
			return nil, fmt.Errorf("partition proof %d: %w", k, err)
		}
		out[k] = p
	}
	return out, nil
}

// EncodeUpdatePartitionProof writes the bincode form (the inverse of the decoder).
func EncodeUpdatePartitionProof(p *UpdatePartitionProof) []byte {
	b := make([]byte, 0, 1<<14)
	b = append(b, p.CommC[:]...)
	b = appendU64(b, uint64(len(p.ApexLeaves)))
	for i := range p.ApexLeaves {
		b = append(b, p.ApexLeaves[i][:]...)
	}
	b = appendU64(b, uint64(len(p.ChallengeProofs)))
	for i := range p.ChallengeProofs {
		c := &p.ChallengeProofs[i]
		b = appendBinMerkleProof(b, &c.ROld)
		b = appendBinMerkleProof(b, &c.DNew)
		b = appendBinMerkleProof(b, &c.RNew)
	}
	return b
}

// Validate checks the proof's shape against an update type: the apex leaf and challenge
// counts, and every inclusion proof shaped like tree R (old and new) or tree D. It checks
// no hashes.
func (p *UpdatePartitionProof) Validate(info *types.UpdateProofInfo) error {
	if len(p.ApexLeaves) != info.ApexLeafCount {
		return shapeErrorf("%d apex leaves, want %d", len(p.ApexLeaves), info.ApexLeafCount)
	}
	if len(p.ChallengeProofs) != info.ChallengesPerPartition {
		return shapeErrorf("%d challenge proofs, want %d", len(p.ChallengeProofs), info.ChallengesPerPartition)
	}
	treeR, treeD := TreeRDepth(info.SectorShape), TreeDDepth(info.SectorShape)
	for i := range p.ChallengeProofs {
		c := &p.ChallengeProofs[i]
		for _, chk := range []struct {
			name  string
			depth TreeDepth
			proof *MerkleProof
		}{{"tree R old", treeR, &c.ROld}, {"tree D new", treeD, &c.DNew}, {"tree R new", treeR, &c.RNew}} {
			if err := chk.depth.CheckShape(chk.proof); err != nil {
				return shapeErrorf("challenge %d %s: %v", i, chk.name, err)
			}
		}
	}
	return nil
}
