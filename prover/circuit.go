// Package prover holds the circuit interface every circuit implements and the errors
// shared by the proving packages.
package prover

import (
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/snarkpipe/snarkpipe/prover/r1cs"
)

// CircuitID names one R1CS shape: circuits with equal IDs synthesize identical systems
// (same rows, same allocation order) and share one parameter file and one recording.
type CircuitID string

// Circuit is a circuit with its witness. Synthesize writes the whole system, values
// included, into cs; it is called with the witness builder for proving and with the
// recorder or counter (values ignored) for the shape.
type Circuit interface {
	ID() CircuitID
	Synthesize(cs r1cs.ConstraintSystem) error
}

// SizedCircuit is implemented by circuits whose counts are known without synthesizing
// them (the Filecoin production circuits, whose counts golden tests pin): the pipeline
// refuses one that can never fit a device's memory at once, before it spends minutes
// recording it.
type SizedCircuit interface {
	Circuit
	// KnownCounts returns the circuit's counts, or false when they are not known.
	KnownCounts() (r1cs.Counts, bool)
}

// WitnessFiller is implemented by circuits that can produce their assignment without
// running Synthesize ("witness-only synthesis"): a specialised generator that writes the
// values straight into the prover's buffers. The proving pipeline uses it, when present,
// once the circuit's shape has been recorded.
//
// inputs has one slot per public input, ONE included (inputs[0] is already 1 and must be
// left alone); aux has one slot per aux variable. The values must be exactly those that
// Synthesize would allocate, in allocation order. An error means the circuit cannot
// produce a witness (for instance bad vanilla data); it must not panic.
type WitnessFiller interface {
	FillWitness(inputs, aux []fr.Element) error
}

// ProgressFiller is a WitnessFiller that fills aux in order and says how far it has got,
// so that the prover can start on what is filled (the MSMs over aux of a 32 GiB Window
// PoSt partition run while its later sectors are filled). FillWitnessProgress is
// FillWitness calling done(n) each time aux[:n] holds its final values, with n never
// decreasing, from any goroutine but never two calls at once. The inputs need only be
// final when it returns.
type ProgressFiller interface {
	WitnessFiller
	FillWitnessProgress(inputs, aux []fr.Element, done func(n int)) error
}

// PartedCircuit is implemented by circuits that are a head followed by a sequence of
// parts, each part allocating the same numbers of inputs and aux variables and referring
// in its rows only to its own variables, the head's and ONE (the challenges of a PoRep
// partition after the roots they share; the sectors of a PoSt partition, with an empty
// head): Synthesize is SynthesizeHead(cs), then SynthesizePart(cs, 0), …,
// SynthesizePart(cs, n−1) into the same system. The pipeline records the parts
// concurrently (r1cs.RecordParts) and joins them into the recording a single synthesis
// would make.
type PartedCircuit interface {
	// Parts returns the head's and every part's numbers of variables.
	Parts() (r1cs.PartsLayout, error)
	// SynthesizeHead synthesizes the head into cs.
	SynthesizeHead(cs r1cs.ConstraintSystem) error
	// SynthesizePart synthesizes part i (0 <= i < n) into cs, which numbers the head's
	// variables as a synthesis of the whole does.
	SynthesizePart(cs r1cs.ConstraintSystem, i int) error
}
