// Package refseal is a reference sealer for small sectors and a generator of synthetic
// vanilla proofs at full production shape.
//
// Seal runs the whole SDR pipeline for 2 KiB and 8 MiB sectors (512 MiB works but takes
// minutes): tree D over the data, the layer labels, tree C over the column hashes, the
// replica and tree R, comm_r; Sector then produces C1 outputs for any seed and PoSt vanilla
// proofs for any randomness, as rust-fil-proofs would.
//
// The synthetic generators (synth.go) produce C1 outputs and PoSt vanilla proofs for
// 512 MiB, 32 GiB and 64 GiB that pass native verification without materialising the
// sector: the data is all zero (so comm_d is the zero-data root), only the challenged nodes
// carry labels computed from their parents, the labels of every other node are
// pseudo-random, and trees C and R are sparse (see tree). This works only where the
// challenges do not depend on comm_r: interactive PoRep (V1, V1_1) and PoSt.
package refseal
