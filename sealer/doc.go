// Package sealer holds Filecoin semantics above the circuits. The files here verify vanilla
// proofs natively before any proving work starts: PoRep C1 outputs (every Merkle path,
// column, label, encoding and comm_r, with challenges re-derived as the registered proof
// requires) and Fallback PoSt vanilla proofs (challenges, inclusion paths, comm_r). Every
// failure is a *VerifyError naming the partition, challenge or sector and the failed check.
package sealer
