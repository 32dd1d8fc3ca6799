// Package graph is the SDR graph of Filecoin's stacked DRG PoRep and the challenge derivations
// that feed circuit public inputs: DRG (BucketGraph) base parents, expander (Feistel) parents,
// parent-table digests, interactive / synthetic / non-interactive PoRep challenges and PoSt
// leaf challenges. Every function reproduces rust-fil-proofs bit for bit, including the
// V1_0_0 quirks (predecessor slot, 32-bit truncation of expander parents).
package graph
