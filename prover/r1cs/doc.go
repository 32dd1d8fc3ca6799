// Package r1cs is the constraint-system API that circuits are written against, with
// bellperson semantics, and its implementations.
//
// Semantics that the official parameter files depend on:
//   - Input 0 is the constant ONE; it is allocated by the constraint system itself before the
//     circuit runs. Alloc and AllocInput append to two separate index spaces (aux, input).
//   - A row is A·B = C over linear combinations. Namespaces and annotations never affect
//     ordering; only the order of Alloc/AllocInput/Enforce calls does.
//   - Repeated terms of one linear combination merge; a term whose merged coefficient is zero
//     is absent (it does not count for density).
//   - After synthesis every input i (ONE included) gets one more row input_i · 0 = 0, so the
//     QAP has NumConstraints + NumInputs rows and every input is dense in A.
//
// Implementations: Witness (assignments and the a, b, c row evaluations), Recorder (CSR
// matrices, density bitmaps and a digest: the Shape), Checker (names the first unsatisfied
// row) and Counter (sizes and densities without storing anything). Shape.Eval computes
// A·z, B·z, C·z from recorded matrices and a full assignment. PartRecorder, Joiner and
// RecordParts record a system of independent parts concurrently into the recording one
// Recorder would make.
package r1cs
