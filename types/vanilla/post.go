package vanilla

import (
	"fmt"

	"github.com/snarkpipe/snarkpipe/types"
)

// FallbackPoStSectorProof is rust-fil-proofs' FallbackPoStSectorProof: the vanilla PoSt proof
// of one sector, as returned (bincode) by generate_single_vanilla_proof.
type FallbackPoStSectorProof struct {
	SectorID uint64
	CommR    Domain
	Sectors  []PoStSectorProof // vanilla_proof.sectors
}

// PoStSectorProof is upstream's SectorProof: one inclusion proof in tree R per challenge.
type PoStSectorProof struct {
	InclusionProofs []MerkleProof
	CommC           Domain
	CommRLast       Domain
}

// DecodePoStSectorProof decodes one bincode FallbackPoStSectorProof with the default limits.
func DecodePoStSectorProof(data []byte) (*FallbackPoStSectorProof, error) {
	return DecodePoStSectorProofWithLimits(data, DefaultLimits())
}

// DecodePoStSectorProofWithLimits decodes one bincode FallbackPoStSectorProof; trailing bytes
// are an error.
func DecodePoStSectorProofWithLimits(data []byte, lim Limits) (*FallbackPoStSectorProof, error) {
	r := &binReader{buf: data}
	p := r.postSectorProof(&lim)
	if r.err == nil && r.pos != len(r.buf) {
		r.fail(ErrMalformed, "%d trailing bytes", len(r.buf)-r.pos)
	}
	if r.err != nil {
		return nil, r.err
	}
	return p, nil
}

// DecodePoStSectorProofFor decodes one vanilla proof of the given PoSt type: counts beyond the
// type's are refused while reading, and the result is validated against the type.
func DecodePoStSectorProofFor(info *types.PoStProofInfo, data []byte) (*FallbackPoStSectorProof, error) {
	p, err := DecodePoStSectorProofWithLimits(data, PoStLimits(info))
	if err != nil {
		return nil, err
	}
	if err := p.Validate(info); err != nil {
		return nil, err
	}
	return p, nil
}

// DecodePoStSectorProofs decodes the list form taken by the with-vanilla calls
// (generate_winning_post_with_vanilla, generate_single_window_post_with_vanilla): one bincode
// blob per sector.
func DecodePoStSectorProofs(blobs [][]byte) ([]*FallbackPoStSectorProof, error) {
	lim := DefaultLimits()
	if len(blobs) > lim.PoStList {
		return nil, &DecodeError{Err: ErrLimit, Msg: "too many vanilla proofs"}
	}
	out := make([]*FallbackPoStSectorProof, len(blobs))
	for i, b := range blobs {
		p, err := DecodePoStSectorProofWithLimits(b, lim)
		if err != nil {
			return nil, fmt.Errorf("vanilla proof %d: %w", i, err)
		}
		out[i] = p
	}
	return out, nil
}

// DecodePoStSectorProofList decodes a bincode Vec<FallbackPoStSectorProof> (u64 count, then
// the proofs back to back).
func DecodePoStSectorProofList(data []byte) ([]*FallbackPoStSectorProof, error) {
	lim := DefaultLimits()
	r := &binReader{buf: data}
	n := r.length(lim.PoStList, minPoStProofSize)
	var out []*FallbackPoStSectorProof
	if r.err == nil {
		out = make([]*FallbackPoStSectorProof, 0, n)
	}
	for i := 0; i < n && r.err == nil; i++ {
		out = append(out, r.postSectorProof(&lim))
	}
	if r.err == nil && r.pos != len(r.buf) {
		r.fail(ErrMalformed, "%d trailing bytes", len(r.buf)-r.pos)
	}
	if r.err != nil {
		return nil, r.err
	}
	return out, nil
}

func (r *binReader) postSectorProof(lim *Limits) *FallbackPoStSectorProof {
	p := &FallbackPoStSectorProof{}
	p.SectorID = r.u64()
	p.CommR = r.domain()
	n := r.length(lim.PoStSectors, minSectorProofSize)
	if r.err != nil {
		return p
	}
	p.Sectors = make([]PoStSectorProof, n)
	for i := range p.Sectors {
		s := &p.Sectors[i]
		m := r.length(lim.InclusionProofs, minMerkleProofSize)
		if r.err != nil {
			return p
		}
		s.InclusionProofs = make([]MerkleProof, m)
		for j := range s.InclusionProofs {
			s.InclusionProofs[j] = r.merkleProof(lim)
		}
		s.CommC = r.domain()
		s.CommRLast = r.domain()
	}
	return p
}

// EncodePoStSectorProof writes the bincode form (the inverse of DecodePoStSectorProof).
func EncodePoStSectorProof(p *FallbackPoStSectorProof) []byte {
	b := make([]byte, 0, 1<<12)
	b = appendU64(b, p.SectorID)
	b = append(b, p.CommR[:]...)
	b = appendU64(b, uint64(len(p.Sectors)))
	for i := range p.Sectors {
		s := &p.Sectors[i]
		b = appendU64(b, uint64(len(s.InclusionProofs)))
		for j := range s.InclusionProofs {
			b = appendBinMerkleProof(b, &s.InclusionProofs[j])
		}
		b = append(b, s.CommC[:]...)
		b = append(b, s.CommRLast[:]...)
	}
	return b
}

// Validate checks the proof against a PoSt proof type: one sector proof with exactly the
// challenge count of the type, every inclusion proof shaped like tree R.
func (p *FallbackPoStSectorProof) Validate(info *types.PoStProofInfo) error {
	if len(p.Sectors) != 1 {
		return shapeErrorf("%d sector proofs, want 1", len(p.Sectors))
	}
	s := &p.Sectors[0]
	if len(s.InclusionProofs) != info.ChallengesPerSector {
		return shapeErrorf("%d inclusion proofs, want %d", len(s.InclusionProofs), info.ChallengesPerSector)
	}
	treeR := TreeRDepth(info.SectorShape)
	for i := range s.InclusionProofs {
		if err := treeR.CheckShape(&s.InclusionProofs[i]); err != nil {
			return shapeErrorf("inclusion proof %d: %v", i, err)
		}
	}
	return nil
}
