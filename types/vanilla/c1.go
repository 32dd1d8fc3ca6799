package vanilla

import (
	"strconv"

	"github.com/snarkpipe/snarkpipe/types"
)

// SealCommitPhase1Output is rust-filecoin-proofs-api's SealCommitPhase1Output (the C1 output,
// lotus' Commit1Out).
type SealCommitPhase1Output struct {
	// RegisteredProof is the upstream variant name, e.g. "StackedDrg32GiBV1_1".
	RegisteredProof string
	// ShapeName is the VanillaSealProof enum key: the V1 name of the sector size, also for
	// V1_1, synthetic and NI proofs ("StackedDrg32GiBV1").
	ShapeName string
	// VanillaProofs is indexed [partition][challenge].
	VanillaProofs [][]StackedProof
	CommR         Domain
	CommD         Domain
	ReplicaID     Domain
	Seed          Domain
	Ticket        Domain
}

// StackedProof is storage-proofs-porep's stacked vanilla Proof of one challenge.
type StackedProof struct {
	CommDProofs         MerkleProof // SHA-256 binary tree D
	CommRLastProof      MerkleProof // Poseidon tree R
	ReplicaColumnProofs ReplicaColumnProof
	LabelingProofs      []LabelingProof // one per layer
	EncodingProof       LabelingProof
}

// ReplicaColumnProof holds the column proofs of the challenge and of its parents.
type ReplicaColumnProof struct {
	CX         ColumnProof
	DrgParents []ColumnProof // 6
	ExpParents []ColumnProof // 8
}

// ColumnProof is a column of labels (one row per layer) and its inclusion proof in tree C.
type ColumnProof struct {
	Index          uint32
	Rows           []Domain
	InclusionProof MerkleProof
}

// LabelingProof is also the layout of upstream's EncodingProof.
type LabelingProof struct {
	Parents    []Domain
	LayerIndex uint32
	Node       uint64
}

var (
	c1Fields          = []string{"registered_proof", "vanilla_proofs", "comm_r", "comm_d", "replica_id", "seed", "ticket"}
	stackedFields     = []string{"comm_d_proofs", "comm_r_last_proof", "replica_column_proofs", "labeling_proofs", "encoding_proof"}
	replicaColFields  = []string{"c_x", "drg_parents", "exp_parents"}
	columnProofFields = []string{"column", "inclusion_proof"}
	columnFields      = []string{"index", "rows", "_h"}
	labelingFields    = []string{"parents", "layer_index", "node"}
	shapeNames        = []string{"StackedDrg2KiBV1", "StackedDrg8MiBV1", "StackedDrg512MiBV1", "StackedDrg32GiBV1", "StackedDrg64GiBV1"}
)

// DecodeC1 decodes a C1 output. Counts are bounded by the largest proof type until
// registered_proof has been read, then by that type's exact counts (SealLimits). It checks
// syntax and counts only; call Validate to check the full shape against the proof type.
func DecodeC1(data []byte) (*SealCommitPhase1Output, error) {
	return decodeC1(data, DefaultLimits(), false)
}

// DecodeC1WithLimits decodes a C1 output, refusing counts beyond lim whatever the type.
func DecodeC1WithLimits(data []byte, lim Limits) (*SealCommitPhase1Output, error) {
	return decodeC1(data, lim, true)
}

func decodeC1(data []byte, lim Limits, custom bool) (*SealCommitPhase1Output, error) {
	r := &jsonReader{buf: data}
	out := &SealCommitPhase1Output{}
	r.readObject(c1Fields, func(f int) {
		switch f {
		case 0:
			out.RegisteredProof = r.readString()
			// Tighten the limits to the declared type; an unknown name is reported by Validate.
			if info, err := types.SealProofByRustName(out.RegisteredProof); err == nil && !custom {
				lim = SealLimits(info)
			}
		case 1:
			r.readEnum(shapeNames, func(k int) {
				out.ShapeName = shapeNames[k]
				out.VanillaProofs = r.readPartitions(&lim)
			})
		case 2:
			out.CommR = r.readDomain()
		case 3:
			out.CommD = r.readDomain()
		case 4:
			out.ReplicaID = r.readDomain()
		case 5:
			out.Seed = r.readDomain()
		case 6:
			out.Ticket = r.readDomain()
		}
	})
	r.end()
	if r.err != nil {
		return nil, r.err
	}
	return out, nil
}

func (r *jsonReader) readPartitions(lim *Limits) (parts [][]StackedProof) {
	r.readArray(lim.Partitions, func(int) {
		var proofs []StackedProof
		r.readArray(lim.ChallengesPerPartition, func(int) {
			proofs = append(proofs, r.readStackedProof(lim))
		})
		parts = append(parts, proofs)
	})
	return parts
}

func (r *jsonReader) readStackedProof(lim *Limits) (p StackedProof) {
	r.readObject(stackedFields, func(f int) {
		switch f {
		case 0:
			p.CommDProofs = r.readMerkleProof(lim)
		case 1:
			p.CommRLastProof = r.readMerkleProof(lim)
		case 2:
			r.readObject(replicaColFields, func(f int) {
				switch f {
				case 0:
					p.ReplicaColumnProofs.CX = r.readColumnProof(lim)
				case 1:
					p.ReplicaColumnProofs.DrgParents = r.readColumnProofs(lim, 6)
				case 2:
					p.ReplicaColumnProofs.ExpParents = r.readColumnProofs(lim, 8)
				}
			})
		case 3:
			r.readArray(lim.Layers, func(int) { p.LabelingProofs = append(p.LabelingProofs, r.readLabelingProof(lim)) })
		case 4:
			p.EncodingProof = r.readLabelingProof(lim)
		}
	})
	return p
}

func (r *jsonReader) readColumnProofs(lim *Limits, max int) (out []ColumnProof) {
	r.readArray(max, func(int) { out = append(out, r.readColumnProof(lim)) })
	return out
}

func (r *jsonReader) readColumnProof(lim *Limits) (c ColumnProof) {
	r.readObject(columnProofFields, func(f int) {
		if f == 1 {
			c.InclusionProof = r.readMerkleProof(lim)
			return
		}
		r.readObject(columnFields, func(f int) {
			switch f {
			case 0:
				c.Index = uint32(r.readUint(1<<32 - 1))
			case 1:
				c.Rows = r.readDomains(lim.Layers)
			case 2:
				r.readNull()
			}
		})
	})
	return c
}

func (r *jsonReader) readLabelingProof(lim *Limits) (l LabelingProof) {
	r.readObject(labelingFields, func(f int) {
		switch f {
		case 0:
			l.Parents = r.readDomains(lim.Parents)
		case 1:
			l.LayerIndex = uint32(r.readUint(1<<32 - 1))
		case 2:
			l.Node = r.readUint(1<<64 - 1)
		}
	})
	return l
}

// EncodeC1 writes the C1 output exactly as serde_json::to_vec does upstream.
func EncodeC1(c *SealCommitPhase1Output) []byte {
	b := make([]byte, 0, 1<<16)
	b = append(b, `{"registered_proof":"`...)
	b = append(b, c.RegisteredProof...)
	b = append(b, `","vanilla_proofs":{"`...)
	b = append(b, c.ShapeName...)
	b = append(b, `":[`...)
	for i, part := range c.VanillaProofs {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '[')
		for j := range part {
			if j > 0 {
				b = append(b, ',')
			}
			b = appendStackedProof(b, &part[j])
		}
		b = append(b, ']')
	}
	b = append(b, `]},"comm_r":`...)
	b = appendDomain(b, &c.CommR)
	b = append(b, `,"comm_d":`...)
	b = appendDomain(b, &c.CommD)
	b = append(b, `,"replica_id":`...)
	b = appendDomain(b, &c.ReplicaID)
	b = append(b, `,"seed":`...)
	b = appendDomain(b, &c.Seed)
	b = append(b, `,"ticket":`...)
	b = appendDomain(b, &c.Ticket)
	return append(b, '}')
}

func appendStackedProof(b []byte, p *StackedProof) []byte {
	b = append(b, `{"comm_d_proofs":`...)
	b = appendMerkleProof(b, &p.CommDProofs)
	b = append(b, `,"comm_r_last_proof":`...)
	b = appendMerkleProof(b, &p.CommRLastProof)
	b = append(b, `,"replica_column_proofs":{"c_x":`...)
	b = appendColumnProof(b, &p.ReplicaColumnProofs.CX)
	b = append(b, `,"drg_parents":`...)
	b = appendColumnProofs(b, p.ReplicaColumnProofs.DrgParents)
	b = append(b, `,"exp_parents":`...)
	b = appendColumnProofs(b, p.ReplicaColumnProofs.ExpParents)
	b = append(b, `},"labeling_proofs":[`...)
	for i := range p.LabelingProofs {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendLabelingProof(b, &p.LabelingProofs[i])
	}
	b = append(b, `],"encoding_proof":`...)
	b = appendLabelingProof(b, &p.EncodingProof)
	return append(b, '}')
}

func appendColumnProofs(b []byte, cs []ColumnProof) []byte {
	b = append(b, '[')
	for i := range cs {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendColumnProof(b, &cs[i])
	}
	return append(b, ']')
}

func appendColumnProof(b []byte, c *ColumnProof) []byte {
	b = append(b, `{"column":{"index":`...)
	b = appendUint(b, uint64(c.Index))
	b = append(b, `,"rows":`...)
	b = appendDomains(b, c.Rows)
	b = append(b, `,"_h":null},"inclusion_proof":`...)
	b = appendMerkleProof(b, &c.InclusionProof)
	return append(b, '}')
}

func appendLabelingProof(b []byte, l *LabelingProof) []byte {
	b = append(b, `{"parents":`...)
	b = appendDomains(b, l.Parents)
	b = append(b, `,"layer_index":`...)
	b = appendUint(b, uint64(l.LayerIndex))
	b = append(b, `,"node":`...)
	b = appendUint(b, l.Node)
	return append(b, '}')
}

func appendUint(b []byte, v uint64) []byte { return strconv.AppendUint(b, v, 10) }

// ProofInfo returns the table row of the output's registered proof.
func (c *SealCommitPhase1Output) ProofInfo() (*types.SealProofInfo, error) {
	return types.SealProofByRustName(c.RegisteredProof)
}
