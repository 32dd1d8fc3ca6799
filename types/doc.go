// Package types holds the Filecoin-facing values shared by every layer: registered proof
// ids (Filecoin's numbering, from go-state-types), the one table of seal and PoSt proof types
// (sector shape, layers, partitions, challenges, tree shape, api version, challenge mode,
// porep_id, circuit id, parameter identifier and file names, whether snarkpipe proves it),
// PoRep configurations, prover_id, replica_id, randomness masking and commitment ⇄ CID
// conversion. It imports nothing of this module.
package types

import "github.com/filecoin-project/go-state-types/abi"

// RegisteredSealProof is Filecoin's seal proof id (go-state-types numbering, 0–19).
type RegisteredSealProof = abi.RegisteredSealProof

// RegisteredPoStProof is Filecoin's PoSt proof id (go-state-types numbering).
type RegisteredPoStProof = abi.RegisteredPoStProof
