package vanilla

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Commit2In is the lotus-bench `Commit2In` / cuzk C1 wrapper:
// {"SectorNum": int64, "Phase1Out": base64 of the C1 JSON, "SectorSize": uint64}.
type Commit2In struct {
	SectorNum  int64
	Phase1Out  []byte
	SectorSize uint64
}

// MaxWrapperSize bounds the wrapper accepted by DecodeCommit2In: a 32 GiB C1 is about 51 MB,
// 68 MB as base64; NI-PoRep outputs are ~12.6× larger.
const MaxWrapperSize = 1 << 30

// DecodeCommit2In decodes the wrapper. Unknown fields and trailing data are errors. The inner
// C1 JSON is not decoded; pass Phase1Out to DecodeC1.
func DecodeCommit2In(data []byte) (*Commit2In, error) {
	if len(data) > MaxWrapperSize {
		return nil, fmt.Errorf("%w: wrapper of %d bytes exceeds %d", ErrLimit, len(data), MaxWrapperSize)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var raw struct {
		SectorNum  *int64
		Phase1Out  *[]byte
		SectorSize *uint64
	}
	if err := dec.Decode(&raw); err != nil {
		return nil, fmt.Errorf("%w: commit2 wrapper: %v", ErrMalformed, err)
	}
	if dec.More() {
		return nil, fmt.Errorf("%w: commit2 wrapper: trailing data", ErrMalformed)
	}
	if raw.SectorNum == nil || raw.Phase1Out == nil || raw.SectorSize == nil {
		return nil, fmt.Errorf("%w: commit2 wrapper: missing SectorNum, Phase1Out or SectorSize", ErrMalformed)
	}
	return &Commit2In{SectorNum: *raw.SectorNum, Phase1Out: *raw.Phase1Out, SectorSize: *raw.SectorSize}, nil
}

// EncodeCommit2In writes the wrapper as lotus-bench and Curio (encoding/json) do.
func EncodeCommit2In(w *Commit2In) ([]byte, error) {
	return json.Marshal(w)
}
