// Package vanilla models and decodes the vanilla proofs snarkpipe receives from the Filecoin
// stack: the C1 output of SealCommitPhase1 (serde JSON written by rust-filecoin-proofs-api),
// the lotus-bench/cuzk wrapper around it, and PoSt vanilla proofs (bincode
// FallbackPoStSectorProof).
//
// Decoders are strict (unknown or duplicate fields, wrong types and trailing data are errors),
// never panic, and bound every count by a limit before allocating, so a forged length cannot
// make them allocate more than the input itself justifies. The JSON encoder writes exactly
// what serde_json writes (struct field order, compact), so decoding and re-encoding upstream
// output is byte-identical.
package vanilla
