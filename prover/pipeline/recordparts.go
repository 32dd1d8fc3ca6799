package pipeline

import (
	"errors"
	"fmt"
	"runtime"

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
	var layout r1cs.PartsLayout
	if err := contain(id, func() (err error) { layout, err = pc.Parts(); return }); err != nil {
		return srs.RecordingKey{}, nil, fmt.Errorf("pipeline: recording %s: %w", id, err)
	}
	keyed := make(chan keyResult, 1)
	go func() {
		k := newKeyCS()
		err := contain(id, func() error { return c.Synthesize(k) })
		keyed <- keyResult{k.key(), err}
	}()
	s, err := r1cs.RecordParts(capacity, layout, workers, func(cs r1cs.ConstraintSystem) error {
		return contain(id, func() error { return pc.SynthesizeHead(cs) })
	}, func(cs r1cs.ConstraintSystem, i int) error {
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

// partWorkers is the number of goroutines that record parts: all cores but the one the
// key's synthesis takes; none on one core, where one synthesis does both.
func partWorkers() int { return runtime.GOMAXPROCS(0) - 1 }

type keyResult struct {
	key srs.RecordingKey
	err error
}

// partsCapacity sizes the recording of a PartedCircuit from its head and part 0 recorded
// alone: exact when every part has part 0's rows and terms (the challenges of a PoRep
// partition, the sectors of a PoSt one), a recorder that grows or a trim (trimRecording)
// otherwise.
func partsCapacity(id prover.CircuitID, pc prover.PartedCircuit) (r1cs.Capacity, error) {
	var layout r1cs.PartsLayout
	if err := contain(id, func() (err error) { layout, err = pc.Parts(); return }); err != nil {
		return r1cs.Capacity{}, err
	}
	head := r1cs.NewRecorder(r1cs.Capacity{})
	if err := contain(id, func() error { return pc.SynthesizeHead(head) }); err != nil {
		return r1cs.Capacity{}, err
	}
	h := head.Finish() // with one A row per head input, ONE included
	p := r1cs.NewPartRecorder(r1cs.Capacity{}, layout, 0)
	if err := contain(id, func() error { return pc.SynthesizePart(p, 0) }); err != nil {
		return r1cs.Capacity{}, err
	}
	if err := p.Err(); err != nil {
		return r1cs.Capacity{}, err
	}
	n := layout.N
	inputs := 1 + layout.HeadInputs + n*layout.InputsPer
	terms := [3]int{
		h.A.NonZeros() + n*(p.A.NonZeros()+layout.InputsPer), // A: one term per input row
		h.B.NonZeros() + n*p.B.NonZeros(),
		h.C.NonZeros() + n*p.C.NonZeros(),
	}
	return r1cs.Capacity{
		Inputs: inputs, Aux: layout.HeadAux + n*layout.AuxPer, Constraints: h.NumConstraints + n*p.Sizes().NumConstraints,
		NonZeros: terms[0] + terms[1] + terms[2], MatrixNonZeros: terms,
	}, nil
}
