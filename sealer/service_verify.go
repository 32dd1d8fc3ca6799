package sealer

import (
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/snarkpipe/snarkpipe/prover"
	"github.com/snarkpipe/snarkpipe/prover/groth16"
	"github.com/snarkpipe/snarkpipe/sealer/porep"
	"github.com/snarkpipe/snarkpipe/sealer/post"
	"github.com/snarkpipe/snarkpipe/types"
	"github.com/snarkpipe/snarkpipe/types/vanilla"
)

// The pipeline verifies every proof against the inputs its circuit allocated. When a
// verifying key source is configured (Deps.VerifyingKey: the official .vk files), the
// Service verifies once more, as the chain will: against public inputs derived from the
// Filecoin data alone (upstream generate_public_inputs), independently of the circuit code.

// verifyIndependently checks each partition proof against vk and its derived inputs.
func (s *Service) verifyIndependently(id prover.CircuitID, proofType string, proofs []groth16.Proof, inputs func(k int) ([]fr.Element, error)) error {
	if s.deps.VerifyingKey == nil {
		return nil
	}
	vk, err := s.deps.VerifyingKey(id)
	if err != nil {
		return newError(CodeUnavailable, proofType, err, "verifying key of %s", id)
	}
	for k := range proofs {
		public, err := inputs(k)
		if err != nil {
			return newError(CodeInternal, proofType, err, "public inputs of partition %d", k)
		}
		if err := vk.Verify(&proofs[k], public); err != nil {
			return newError(CodeInternal, proofType, err, "partition %d proof does not verify against the verifying key with the public inputs derived from the request", k)
		}
	}
	return nil
}

// sealInputs derives partition k's public inputs from a C1 output.
func sealInputs(info *types.SealProofInfo, c1 *vanilla.SealCommitPhase1Output) func(k int) ([]fr.Element, error) {
	return func(k int) ([]fr.Element, error) {
		return porep.SealPublicInputs(info, c1.ReplicaID, c1.CommD, c1.CommR, c1.Seed, k)
	}
}

// postInputs derives the public inputs of the one partition a PoSt request proves. Sector
// indices are global (partition·sectors_per_partition + position), so the request's
// sectors are placed at their partition in an otherwise unused list.
func postInputs(info *types.PoStProofInfo, randomness []byte, partition int, proofs []*vanilla.FallbackPoStSectorProof) func(k int) ([]fr.Element, error) {
	return func(k int) ([]fr.Element, error) {
		if k != 0 {
			return nil, fmt.Errorf("PoSt request proves one partition, asked for %d", k)
		}
		rnd, ok := types.MaskRandomness(randomness)
		if !ok {
			return nil, fmt.Errorf("randomness of %d bytes", len(randomness))
		}
		mine := make([]post.PublicSector, len(proofs))
		for i, p := range proofs {
			mine[i] = post.PublicSector{ID: p.SectorID, CommR: p.CommR}
		}
		if info.Kind == types.PoStWinning {
			return post.PublicInputs(info, rnd, mine, 0)
		}
		all := make([]post.PublicSector, partition*info.CircuitSectorCount, partition*info.CircuitSectorCount+len(mine))
		for i := range all {
			all[i] = mine[0]
		}
		return post.PublicInputs(info, rnd, append(all, mine...), partition)
	}
}
