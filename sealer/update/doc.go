// Package update is the SnapDeals (EmptySectorUpdate) circuit: the R1CS of one partition
// proof of a sector update, bit-compatible with rust-fil-proofs storage-proofs-update
// (circuit.rs, gadgets.rs), with its public inputs, challenge derivation, native
// encoding (phi, rho) and a fast witness filler.
package update
