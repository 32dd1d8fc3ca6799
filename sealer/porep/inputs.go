package porep

import (
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/snarkpipe/snarkpipe/sealer/gadget"
	"github.com/snarkpipe/snarkpipe/sealer/graph"
	"github.com/snarkpipe/snarkpipe/types"
)

// PublicInputs is StackedCompound::generate_public_inputs for one partition: replica_id,
// comm_d, comm_r, then per challenge its tree-D index, the 6 base and 8 expander parent
// indices, the challenge, and its tree-R and tree-C indices (spec §7.4). ONE is not
// included: the result is the circuit's inputs 1.. in order.
func PublicInputs(g *graph.Graph, replicaID, commD, commR [32]byte, challenges []uint64) ([]fr.Element, error) {
	head := make([]fr.Element, 3)
	for i, b := range [][32]byte{replicaID, commD, commR} {
		v, err := gadget.FrFromBytesLE(&b)
		if err != nil {
			return nil, fmt.Errorf("porep: public input %d: %w", i, err)
		}
		head[i] = v
	}
	withParents, err := g.WithParents(challenges)
	if err != nil {
		return nil, fmt.Errorf("porep: %w", err)
	}
	out := make([]fr.Element, 0, 3+18*len(challenges))
	out = append(out, head...)
	for _, cp := range withParents {
		out = appendIndex(out, cp.Challenge)
		for _, p := range cp.Base {
			out = appendIndex(out, uint64(p))
		}
		for _, p := range cp.Exp {
			out = appendIndex(out, uint64(p))
		}
		out = appendIndex(out, cp.Challenge) // the UInt64 challenge
		out = appendIndex(out, cp.Challenge) // tree R
		out = appendIndex(out, cp.Challenge) // tree C
	}
	return out, nil
}

// appendIndex appends a node index as a field element: what pack_into_inputs of its LSB
// first bits yields.
func appendIndex(out []fr.Element, v uint64) []fr.Element {
	var e fr.Element
	e.SetUint64(v)
	return append(out, e)
}

// SealPublicInputs derives the challenges of partition k of a seal (from the seed, or from
// comm_r for synthetic and NI PoRep) and returns that partition's public inputs.
func SealPublicInputs(info *types.SealProofInfo, replicaID, commD, commR, seed [32]byte, k int) ([]fr.Element, error) {
	return ConfigPublicInputs(info.Config(), replicaID, commD, commR, seed, k)
}

// ConfigPublicInputs is SealPublicInputs for any PoRep configuration (sector size,
// porep_id, api version and challenge mode), as upstream's tests and seal regression
// records use them: some pair a porep_id with another api version.
func ConfigPublicInputs(cfg types.PoRepConfig, replicaID, commD, commR, seed [32]byte, k int) ([]fr.Element, error) {
	g, err := graph.ForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("porep: %w", err)
	}
	challenges, err := graph.ConfigChallenges(cfg, replicaID, commR, seed, k)
	if err != nil {
		return nil, fmt.Errorf("porep: %w", err)
	}
	return PublicInputs(g, replicaID, commD, commR, challenges)
}
