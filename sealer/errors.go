package sealer

import (
	"errors"
	"fmt"
	"strings"
)

// ErrInvalidVanilla is wrapped by every VerifyError: a vanilla proof (C1 output or PoSt
// vanilla proof) failed native verification. It is a permanent error: proving it would
// only produce a Groth16 proof that does not verify.
var ErrInvalidVanilla = errors.New("sealer: invalid vanilla proof")

// Check names the verification step that failed.
type Check uint8

// Verification steps, roughly in the order they run.
const (
	CheckShape         Check = iota // counts, proof kind or tree shape do not fit the proof type
	CheckCanonical                  // a 32-byte value is not a canonical field element
	CheckReplicaID                  // replica_id differs from the one derived from the sector
	CheckSector                     // sector id or comm_r differ from the public sector list
	CheckCommR                      // comm_r ≠ Poseidon2(comm_c, comm_r_last)
	CheckSameRoots                  // challenges (or inclusion proofs) disagree on comm_c / comm_r_last
	CheckChallenge                  // the proof opens another node than the derived challenge
	CheckRoot                       // a Merkle proof claims another root than the commitment
	CheckPath                       // a Merkle path does not hash to its claimed root
	CheckColumnHash                 // a column's hash differs from its tree C leaf
	CheckLabelingProof              // a labeling/encoding proof's layer, node or parents differ from the columns
	CheckLabel                      // a recomputed label differs from the challenged column
	CheckEncoding                   // label_L + data ≠ the replica leaf of tree R
)

var checkNames = [...]string{
	CheckShape:         "shape",
	CheckCanonical:     "canonical field element",
	CheckReplicaID:     "replica_id",
	CheckSector:        "sector",
	CheckCommR:         "comm_r = Poseidon2(comm_c, comm_r_last)",
	CheckSameRoots:     "common roots",
	CheckChallenge:     "challenged node",
	CheckRoot:          "root",
	CheckPath:          "inclusion path",
	CheckColumnHash:    "column hash",
	CheckLabelingProof: "labeling proof",
	CheckLabel:         "label",
	CheckEncoding:      "encoding",
}

func (c Check) String() string {
	if int(c) < len(checkNames) {
		return checkNames[c]
	}
	return fmt.Sprintf("Check(%d)", uint8(c))
}

// Proof kinds named in errors.
const (
	KindPoRep = "porep"
	KindPoSt  = "post"
)

// VerifyError locates a failed vanilla-proof check. Fields that do not apply are -1
// (Partition, Challenge, Position) or false (HasSector, HasNode).
type VerifyError struct {
	Kind      string // KindPoRep or KindPoSt
	Partition int    // PoRep partition, Window PoSt partition
	Challenge int    // challenge index within its partition (PoRep) or sector (PoSt)
	Position  int    // PoSt: position of the sector in the proof list
	HasSector bool
	Sector    uint64 // PoSt: sector number
	HasNode   bool
	Node      uint64 // the challenged node or leaf
	Check     Check
	Where     string // which part of the proof: "comm_d path", "drg parent 3 column", ...
	Detail    string
}

func (e *VerifyError) Error() string {
	var b strings.Builder
	b.WriteString("sealer: invalid ")
	b.WriteString(e.Kind)
	b.WriteString(" vanilla proof:")
	if e.Partition >= 0 {
		fmt.Fprintf(&b, " partition %d", e.Partition)
	}
	if e.Position >= 0 {
		fmt.Fprintf(&b, " position %d", e.Position)
	}
	if e.HasSector {
		fmt.Fprintf(&b, " sector %d", e.Sector)
	}
	if e.Challenge >= 0 {
		fmt.Fprintf(&b, " challenge %d", e.Challenge)
	}
	if e.HasNode {
		fmt.Fprintf(&b, " (node %d)", e.Node)
	}
	if !strings.HasSuffix(b.String(), ":") {
		b.WriteByte(':')
	}
	fmt.Fprintf(&b, " %s check failed", e.Check)
	if e.Where != "" {
		fmt.Fprintf(&b, " at %s", e.Where)
	}
	if e.Detail != "" {
		b.WriteString(": ")
		b.WriteString(e.Detail)
	}
	return b.String()
}

// Unwrap makes errors.Is(err, ErrInvalidVanilla) hold.
func (e *VerifyError) Unwrap() error { return ErrInvalidVanilla }

// AsVerifyError returns the VerifyError inside err, if any.
func AsVerifyError(err error) (*VerifyError, bool) {
	var ve *VerifyError
	ok := errors.As(err, &ve)
	return ve, ok
}
