// Package gadget holds the bellperson-compatible gadgets that Filecoin's circuits are built
// from, each with a native twin: Boolean (three-state, with upstream's constant folding),
// AllocatedNum/Num, bit decompositions, multipacking, UInt32 with MultiEq, SHA-256 and the
// tree-D node hash (Sha254), pick/insert, Poseidon, and Merkle inclusion (PoR).
//
// Every gadget emits exactly the rows upstream emits: same order, same A/B/C sides, same
// coefficients, same aux allocation order. The official parameter files are tied to that
// exact R1CS, so the row-by-row tests in this package are the contract. The spec is
// shared/spec/circuits.md §1, §3–§6.
//
// Entry points, by spec section:
//   - §3.1 Boolean, AllocatedBit, AllocBit, And/AndNot/Nor/Xor, BoolXor/BoolAnd/BoolOr,
//     Sha256Ch/Sha256Maj, BoolEnforceEqual.
//   - §3.2 AllocatedNum (ToBitsLE, ToBitsLEStrict, Inputize), Num, ReverseBitNumbering,
//     PackIntoInputs, PackBits, UInt32 (AddMany with MultiEq), UInt64.
//   - §3.3 Equal, Add/Encode, Sub, Mul, Pick, Insert (2/4/8 hand-optimised), Select,
//     ConditionallyReverse.
//   - §4 Sha256, Sha256Compression, Sha256HashCircuit, Sha256NodeCircuit (tree D); native
//     twins Sha254, NodeHash, NodeHashFr, Sha254Fr and the bit-order helpers.
//   - §5 Poseidon (poseidon*.go).
//   - §6 PoR (PoRCircuit), PoRNoChallengeInput, and the native ComputeRoot.
//
// Gadgets always compute witness values. Constraint systems that only need the shape ignore
// them, so one code path serves proving and recording. Whether a gadget emits rows depends
// only on which Booleans are constants, never on witness values. A system that implements ValuesOnlySystem gets the same
// assignment without any rows being built.
package gadget
