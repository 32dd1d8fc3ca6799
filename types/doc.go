// Package types holds the Filecoin-facing values shared by every layer: registered proof
// ids (Filecoin's numbering, from go-state-types), sector ids, commitments. It imports
// nothing of this module.
package types

import "github.com/filecoin-project/go-state-types/abi"

// RegisteredSealProof is Filecoin's seal proof id (go-state-types numbering, 0–19).
type RegisteredSealProof = abi.RegisteredSealProof

// RegisteredPoStProof is Filecoin's PoSt proof id (go-state-types numbering).
type RegisteredPoStProof = abi.RegisteredPoStProof
