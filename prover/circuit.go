// Package prover holds the circuit interface every circuit implements and the errors
// shared by the proving packages.
package prover

import "github.com/snarkpipe/snarkpipe/prover/r1cs"

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
