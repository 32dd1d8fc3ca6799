package types

import (
	"crypto/sha256"
	"encoding/hex"
)

// ParamVersion is the version prefix of every official parameter file name.
const ParamVersion = "v28"

// paramFileName builds "v28-<prefix>-<hex sha256(identifier)>.<ext>" (rust-fil-proofs
// storage-proofs-core/src/parameter_cache.rs cache_identifier).
func paramFileName(prefix, identifier, ext string) string {
	sum := sha256.Sum256([]byte(identifier))
	return ParamVersion + "-" + prefix + "-" + hex.EncodeToString(sum[:]) + "." + ext
}
