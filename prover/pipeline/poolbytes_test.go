package pipeline

import (
	"testing"

	"github.com/snarkpipe/snarkpipe/prover/backend/gpu"
	"github.com/snarkpipe/snarkpipe/prover/r1cs"
)

// TestProofPoolBytesMatchesGPU pins the pipeline's copy of the GPU backend's per-shape
// proof-pool size (the pipeline imports no backend) to the backend's own formula.
func TestProofPoolBytesMatchesGPU(t *testing.T) {
	for _, s := range []r1cs.Sizes{
		{NumInputs: 1, NumAux: 0, NumConstraints: 0},
		{NumInputs: 40, NumAux: 3842449, NumConstraints: 3844929},
		{NumInputs: 328, NumAux: 130169893, NumConstraints: 130278541}, // 32 GiB PoRep
	} {
		if got, want := proofPoolBytes(s), int64(gpu.ProofPoolBytes(s)); got != want {
			t.Errorf("%+v: pipeline %d, gpu backend %d", s, got, want)
		}
	}
}
