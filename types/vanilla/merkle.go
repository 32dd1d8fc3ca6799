package vanilla

import (
	"fmt"

	"github.com/snarkpipe/snarkpipe/types"
)

// ProofKind is the variant of upstream's Merkle ProofData enum.
type ProofKind uint8

// Merkle proof variants, in upstream enum order (bincode tags 0, 1, 2).
const (
	ProofSingle ProofKind = iota // base tree only
	ProofSub                     // base tree + sub tree
	ProofTop                     // base + sub + top tree
)

var proofKindNames = []string{"Single", "Sub", "Top"}

func (k ProofKind) String() string {
	if int(k) < len(proofKindNames) {
		return proofKindNames[k]
	}
	return fmt.Sprintf("ProofKind(%d)", uint8(k))
}

// PathElement is one level of an inclusion path: the sibling hashes and the position of the
// path node among its siblings.
type PathElement struct {
	Hashes []Domain
	Index  uint64
}

// MerkleProof is upstream's MerkleProof: Single uses only Base; Sub adds Sub; Top adds Top.
type MerkleProof struct {
	Kind ProofKind
	Base []PathElement // "path" of Single, "base_proof" of Sub/Top
	Sub  []PathElement // "sub_proof" (Sub, Top)
	Top  []PathElement // "top_proof" (Top)
	Root Domain
	Leaf Domain
}

// Path returns the whole path leaf to root: base, then sub, then top levels.
func (p *MerkleProof) Path() []PathElement {
	out := make([]PathElement, 0, len(p.Base)+len(p.Sub)+len(p.Top))
	out = append(out, p.Base...)
	out = append(out, p.Sub...)
	return append(out, p.Top...)
}

// --- JSON (serde) ---

var (
	singleFields = []string{"root", "leaf", "path"}
	subFields    = []string{"base_proof", "sub_proof", "root", "leaf"}
	topFields    = []string{"base_proof", "sub_proof", "top_proof", "root", "leaf"}
	pathFields   = []string{"path"}
	elemFields   = []string{"hashes", "index"}
	dataFields   = []string{"data"}
)

func (r *jsonReader) readMerkleProof(lim *Limits) (p MerkleProof) {
	r.readObject(dataFields, func(int) {
		r.readEnum(proofKindNames, func(k int) {
			p.Kind = ProofKind(k)
			switch p.Kind {
			case ProofSingle:
				r.readObject(singleFields, func(f int) {
					switch f {
					case 0:
						p.Root = r.readDomain()
					case 1:
						p.Leaf = r.readDomain()
					case 2:
						p.Base = r.readInclusionPath(lim)
					}
				})
			case ProofSub, ProofTop:
				fields := subFields
				if p.Kind == ProofTop {
					fields = topFields
				}
				r.readObject(fields, func(f int) {
					switch fields[f] {
					case "base_proof":
						p.Base = r.readInclusionPath(lim)
					case "sub_proof":
						p.Sub = r.readInclusionPath(lim)
					case "top_proof":
						p.Top = r.readInclusionPath(lim)
					case "root":
						p.Root = r.readDomain()
					case "leaf":
						p.Leaf = r.readDomain()
					}
				})
			}
		})
	})
	return p
}

func (r *jsonReader) readInclusionPath(lim *Limits) (path []PathElement) {
	r.readObject(pathFields, func(int) {
		r.readArray(lim.PathElements, func(int) {
			var e PathElement
			r.readObject(elemFields, func(f int) {
				if f == 0 {
					e.Hashes = r.readDomains(lim.PathHashes)
				} else {
					e.Index = r.readUint(1<<63 - 1)
				}
			})
			path = append(path, e)
		})
	})
	if path == nil && r.err == nil {
		path = []PathElement{}
	}
	return path
}

func appendMerkleProof(b []byte, p *MerkleProof) []byte {
	b = append(b, `{"data":{"`...)
	b = append(b, p.Kind.String()...)
	b = append(b, `":{`...)
	switch p.Kind {
	case ProofSingle:
		b = append(b, `"root":`...)
		b = appendDomain(b, &p.Root)
		b = append(b, `,"leaf":`...)
		b = appendDomain(b, &p.Leaf)
		b = append(b, `,"path":`...)
		b = appendInclusionPath(b, p.Base)
	default:
		b = append(b, `"base_proof":`...)
		b = appendInclusionPath(b, p.Base)
		b = append(b, `,"sub_proof":`...)
		b = appendInclusionPath(b, p.Sub)
		if p.Kind == ProofTop {
			b = append(b, `,"top_proof":`...)
			b = appendInclusionPath(b, p.Top)
		}
		b = append(b, `,"root":`...)
		b = appendDomain(b, &p.Root)
		b = append(b, `,"leaf":`...)
		b = appendDomain(b, &p.Leaf)
	}
	return append(b, "}}}"...)
}

func appendInclusionPath(b []byte, path []PathElement) []byte {
	b = append(b, `{"path":[`...)
	for i := range path {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"hashes":`...)
		b = appendDomains(b, path[i].Hashes)
		b = append(b, `,"index":`...)
		b = appendUint(b, path[i].Index)
		b = append(b, '}')
	}
	return append(b, "]}"...)
}

// LeafIndex reconstructs the index of the proven leaf from the path positions: each level's
// index is one digit, least significant first, in that level's arity (base, then sub, then
// top). Call it on a proof whose shape has been checked.
func (p *MerkleProof) LeafIndex(shape types.TreeShape) uint64 {
	var idx, scale uint64 = 0, 1
	for _, lv := range []struct {
		path  []PathElement
		arity int
	}{{p.Base, shape.Base}, {p.Sub, shape.Sub}, {p.Top, shape.Top}} {
		for _, e := range lv.path {
			idx += e.Index * scale
			scale *= uint64(lv.arity)
		}
	}
	return idx
}
