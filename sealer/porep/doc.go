// Package porep is the SDR PoRep circuit (rust-fil-proofs StackedCircuit): the R1CS one
// partition of a SealCommit2 proves, its public inputs (StackedCompound
// generate_public_inputs) and its witness fill.
//
// The circuit must synthesize exactly upstream's system (shared/spec/circuits.md §7.4–§7.6):
// the official parameter files only prove that R1CS. The synthesis order is the contract;
// the golden count tests pin it. V1, V1_1, synthetic and NI PoRep of one sector size share
// one circuit: only the challenges and parents (the public inputs) differ.
package porep
