// Package post is the Fallback PoSt circuit (rust-fil-proofs FallbackPoStCircuit) used by
// Winning and Window PoSt, its public inputs (FallbackPoStCompound generate_public_inputs)
// and the circuits built from vanilla proofs, with upstream's padding of partial
// partitions. Spec: shared/spec/circuits.md §8.
package post
