package groth16

import (
	"errors"
	"fmt"
	"time"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/snarkpipe/snarkpipe/prover/backend"
	"github.com/snarkpipe/snarkpipe/prover/r1cs"
)

// ErrNoResidentPath is returned by LoadShape when the key's backend cannot keep a
// recorded shape resident (it does not implement backend.ShapeEvaluator): callers then
// prove with Prove and host-side row evaluations.
var ErrNoResidentPath = errors.New("groth16: backend has no pre-compiled (resident shape) path")

// ResidentCircuit is a recorded R1CS made resident on the key's backend: the pre-compiled
// proving path, where each proof hands over only its assignment and the backend computes
// A·z, B·z, C·z, h and the MSMs itself. The proofs equal Prove's for the same (r, s).
type ResidentCircuit struct {
	pk    *ProvingKey
	ev    backend.ShapeEvaluator
	shape backend.ResidentShape
}

// DeviceTimings is where one resident proof's time went: the backend's stages and the
// host-side blinding (Assemble).
type DeviceTimings struct {
	backend.ResidentTimings
	Assemble time.Duration
}

// LoadShape makes s resident on the key's backend. s must be the shape the key was made
// for: its sizes and density counts are checked against the key's.
func (pk *ProvingKey) LoadShape(s *r1cs.Shape) (*ResidentCircuit, error) {
	ev, ok := pk.backend.(backend.ShapeEvaluator)
	if !ok {
		return nil, fmt.Errorf("%w (%s)", ErrNoResidentPath, pk.backend.Name())
	}
	if got := s.Counts(); got != pk.Counts {
		return nil, fmt.Errorf("%w: shape counts %+v, key counts %+v", ErrShape, got, pk.Counts)
	}
	rs, err := ev.LoadShape(s)
	if err != nil {
		return nil, fmt.Errorf("groth16: loading the shape on %s: %w", pk.backend.Name(), err)
	}
	return &ResidentCircuit{pk: pk, ev: ev, shape: rs}, nil
}

// LoadShapeStreamed is LoadShape with the shape's CSR sides kept in page-locked host
// memory and streamed for every proof (backend.ShapeStreamer: the memory tiers).
func (pk *ProvingKey) LoadShapeStreamed(s *r1cs.Shape) (*ResidentCircuit, error) {
	ev, ok := pk.backend.(backend.ShapeEvaluator)
	ss, streams := pk.backend.(backend.ShapeStreamer)
	if !ok || !streams {
		return nil, fmt.Errorf("%w (%s cannot stream a shape)", ErrNoResidentPath, pk.backend.Name())
	}
	if got := s.Counts(); got != pk.Counts {
		return nil, fmt.Errorf("%w: shape counts %+v, key counts %+v", ErrShape, got, pk.Counts)
	}
	rs, err := ss.LoadShapeStreamed(s)
	if err != nil {
		return nil, fmt.Errorf("groth16: loading the streamed shape on %s: %w", pk.backend.Name(), err)
	}
	return &ResidentCircuit{pk: pk, ev: ev, shape: rs}, nil
}

// ReserveBuffers allocates the per-proof device buffers of the shape now, when the
// backend can (backend.BufferReserver), instead of in the first proof; otherwise it does
// nothing.
func (rc *ResidentCircuit) ReserveBuffers() error {
	br, ok := rc.ev.(backend.BufferReserver)
	if !ok {
		return nil
	}
	if err := br.ReserveProofBuffers(rc.shape); err != nil {
		return fmt.Errorf("groth16: reserving proof buffers on %s: %w", rc.pk.backend.Name(), err)
	}
	return nil
}

// Close releases the resident shape (not the key).
func (rc *ResidentCircuit) Close() error { return rc.shape.Close() }

// Prove makes one proof from the assignment inputs (ONE first) ‖ aux, with blinding rs
// (nil: fresh randomness).
func (rc *ResidentCircuit) Prove(inputs, aux []fr.Element, rs *Randomness) (Proof, DeviceTimings, error) {
	var tm DeviceTimings
	c := rc.pk.Counts
	if len(inputs) != c.NumInputs || len(aux) != c.NumAux {
		return Proof{}, tm, fmt.Errorf("groth16: assignment has %d inputs and %d aux, key wants %d and %d", len(inputs), len(aux), c.NumInputs, c.NumAux)
	}
	return rc.prove(rs, func(k backend.ResidentKey) (backend.ResidentResults, error) {
		return rc.ev.ProveResident(rc.shape, inputs, aux, k)
	})
}

// ProvePacked is Prove with the aux assignment bit-packed (backend.PackAux), for backends
// that expand it themselves (backend.PackedShapeEvaluator).
func (rc *ResidentCircuit) ProvePacked(inputs []fr.Element, aux *backend.PackedAux, rs *Randomness) (Proof, DeviceTimings, error) {
	var tm DeviceTimings
	pe, ok := rc.ev.(backend.PackedShapeEvaluator)
	if !ok {
		return Proof{}, tm, fmt.Errorf("%w: %s takes no packed witness", ErrNoResidentPath, rc.pk.backend.Name())
	}
	c := rc.pk.Counts
	if len(inputs) != c.NumInputs || aux.N != c.NumAux {
		return Proof{}, tm, fmt.Errorf("groth16: assignment has %d inputs and %d aux, key wants %d and %d", len(inputs), aux.N, c.NumInputs, c.NumAux)
	}
	return rc.prove(rs, func(k backend.ResidentKey) (backend.ResidentResults, error) {
		return pe.ProveResidentPacked(rc.shape, inputs, aux, k)
	})
}

// ProveStreamed is Prove for an assignment the host is still filling: aux in order and
// the inputs by the end, ready telling how far. On a backend that streams
// (backend.StreamingShapeEvaluator) the device starts on the prefix already filled;
// on another it waits for the whole assignment and proves as Prove. The proof is
// Prove's for the final assignment.
func (rc *ResidentCircuit) ProveStreamed(inputs, aux []fr.Element, ready backend.AuxProgress, rs *Randomness) (Proof, DeviceTimings, error) {
	var tm DeviceTimings
	c := rc.pk.Counts
	if len(inputs) != c.NumInputs || len(aux) != c.NumAux {
		return Proof{}, tm, fmt.Errorf("groth16: assignment has %d inputs and %d aux, key wants %d and %d", len(inputs), len(aux), c.NumInputs, c.NumAux)
	}
	se, ok := rc.ev.(backend.StreamingShapeEvaluator)
	if !ok {
		if err := ready.WaitAll(); err != nil {
			return Proof{}, tm, err
		}
		return rc.Prove(inputs, aux, rs)
	}
	return rc.prove(rs, func(k backend.ResidentKey) (backend.ResidentResults, error) {
		return se.ProveResidentStreamed(rc.shape, inputs, aux, k, ready)
	})
}

// prove runs the backend's part through run and blinds the result.
func (rc *ResidentCircuit) prove(rs *Randomness, run func(backend.ResidentKey) (backend.ResidentResults, error)) (Proof, DeviceTimings, error) {
	var tm DeviceTimings
	if rs == nil {
		fresh, err := SampleRandomness(nil)
		if err != nil {
			return Proof{}, tm, err
		}
		rs = &fresh
	}
	pk := rc.pk
	res, err := run(pk.residentKey())
	tm.ResidentTimings = res.Timings
	if err != nil {
		return Proof{}, tm, fmt.Errorf("groth16: resident proof on %s: %w", pk.backend.Name(), err)
	}
	t := time.Now()
	proof := pk.assemble(&msmResults{h: res.H, l: res.L, a: res.A, b1: res.B1, b2: res.B2}, rs)
	tm.Assemble = time.Since(t)
	return proof, tm, nil
}
