package pipeline

import (
	"errors"
	"fmt"

	"github.com/snarkpipe/snarkpipe/prover"
	"github.com/snarkpipe/snarkpipe/prover/r1cs"
	"github.com/snarkpipe/snarkpipe/prover/srs"
)

// recordParts is recordInto for a PartedCircuit: r1cs.RecordParts records the parts on
// workers goroutines and joins them into the recording one synthesis makes, while one more
// goroutine synthesizes the whole circuit into the key hasher. The key's synthesis runs on
// one core and the parts on the others, so on a many-core host the recording takes about
// the key's synthesis instead of the whole recording's (docs/BENCHMARKS.md, "Recording in
// parts").
func recordParts(c prover.Circuit, pc prover.PartedCircuit, capacity r1cs.Capacity, workers int) (srs.RecordingKey, *r1cs.Shape, error) {
	id := c.ID()
	var n, inPer, auxPer int
	if err := contain(id, func() (err error) { n, inPer, auxPer, err = pc.Parts(); return }); err != nil {
		return srs.RecordingKey{}, nil, fmt.Errorf("pipeline: recording %s: %w", id, err)
	}
	keyed := make(chan keyResult, 1)
	go func() {
		k := newKeyCS()
		err := contain(id, func() error { return c.Synthesize(k) })
		keyed <- keyResult{k.key(), err}
	}()
	parts := r1cs.PartsLayout{N: n, InputsPer: inPer, AuxPer: auxPer}
	s, err := r1cs.RecordParts(capacity, parts, workers, func(cs r1cs.ConstraintSystem, i int) error {
		return contain(id, func() error { return pc.SynthesizePart(cs, i) })
	})
	if errors.Is(err, r1cs.ErrPartSize) {
		err = fmt.Errorf("%w: %w", ErrCircuitChanged, err)
	}
	kr := <-keyed
	if err = errors.Join(err, kr.err); err != nil {
		return srs.RecordingKey{}, nil, fmt.Errorf("pipeline: recording %s: %w", id, err)
	}
	return kr.key, s, nil
}

type keyResult struct {
	key srs.RecordingKey
	err error
}

// partsCapacity sizes the recording of a PartedCircuit from its part 0 recorded alone:
// exact when every part has part 0's rows and terms (the sectors of a PoSt partition), a
// recorder that grows or a trim (trimRecording) otherwise.
func partsCapacity(id prover.CircuitID, pc prover.PartedCircuit) (r1cs.Capacity, error) {
	var n, inPer, auxPer int
	if err := contain(id, func() (err error) { n, inPer, auxPer, err = pc.Parts(); return }); err != nil {
		return r1cs.Capacity{}, err
	}
	p := r1cs.NewPartRecorder(r1cs.Capacity{}, 1, 0)
	if err := contain(id, func() error { return pc.SynthesizePart(p, 0) }); err != nil {
		return r1cs.Capacity{}, err
	}
	if err := p.Err(); err != nil {
		return r1cs.Capacity{}, err
	}
	inputs, rows := 1+n*inPer, n*p.Sizes().NumConstraints
	terms := [3]int{n*p.A.NonZeros() + inputs, n * p.B.NonZeros(), n * p.C.NonZeros()} // A: one term per input row
	return r1cs.Capacity{Inputs: inputs, Aux: n * auxPer, Constraints: rows, NonZeros: terms[0] + terms[1] + terms[2], MatrixNonZeros: terms}, nil
}
