package srs

import (
	"encoding/hex"

	"github.com/snarkpipe/snarkpipe/prover/r1cs"
)

// DevParamsName is the file name of dev parameters for a recorded R1CS. It can never be
// mistaken for an official file (those are named v28-…-<hash>.params).
func DevParamsName(shape *r1cs.Shape) string {
	return "snarkpipe-dev-" + hex.EncodeToString(shape.Digest[:16]) + ".params"
}
