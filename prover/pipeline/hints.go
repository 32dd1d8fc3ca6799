package pipeline

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/snarkpipe/snarkpipe/prover"
	"github.com/snarkpipe/snarkpipe/prover/r1cs"
	"github.com/snarkpipe/snarkpipe/prover/srs"
)

// Hint is what the pipeline knows about a circuit id from its first synthesis: the sizes
// that pre-size every buffer and the memory its residency and partitions take. Hints are
// persisted (hints.json in the recordings directory) so that a restarted service admits
// and refuses jobs correctly before it has synthesized anything.
type Hint struct {
	Key      string // recording key of the synthesis the sizes come from
	Counts   r1cs.Counts
	NonZeros int
	// MatrixNonZeros splits NonZeros by matrix (A, B, C) to pre-size a recorder; zero
	// in hints persisted before it existed. It sizes no reservation (see sameSizes).
	MatrixNonZeros [3]int
	ShapeBytes     int64
	ParamsBytes    int64
	// ProbedBy is the Deps.CodeID of the process that probed Key (empty: none trusted).
	ProbedBy string `json:",omitempty"`
}

func hintOf(key srs.RecordingKey, s *r1cs.Shape) Hint {
	return Hint{
		Key:            key.String(),
		Counts:         s.Counts(),
		NonZeros:       s.A.NonZeros() + s.B.NonZeros() + s.C.NonZeros(),
		MatrixNonZeros: [3]int{s.A.NonZeros(), s.B.NonZeros(), s.C.NonZeros()},
		ShapeBytes:     r1cs.EncodedShapeLen(s),
		ParamsBytes:    srs.ParamsBytes(s.Counts()),
	}
}

// sameSizes reports whether h and o size the same reservations and name the same key:
// every field but MatrixNonZeros, which a hint persisted by an older binary lacks, and
// ProbedBy.
func (h Hint) sameSizes(o Hint) bool {
	h.MatrixNonZeros, o.MatrixNonZeros = [3]int{}, [3]int{}
	h.ProbedBy, o.ProbedBy = "", ""
	return h == o
}

func (h Hint) slot() slotShape {
	return shapeFor(h.Counts.NumInputs+h.Counts.NumAux, h.Counts.DomainSize())
}

// hostEntryBytes is a resident circuit on the host: its recording and its parameters.
func (h Hint) hostEntryBytes() int64 { return h.ShapeBytes + h.ParamsBytes }

// deviceWorkingSet is what a device holds per partition: z and the three row vectors.
func (h Hint) deviceWorkingSet() int64 { return h.slot().bytes() }

// Capacity pre-sizes a recorder for the circuit.
func (h Hint) capacity() r1cs.Capacity {
	return r1cs.Capacity{
		Inputs: h.Counts.NumInputs, Aux: h.Counts.NumAux, Constraints: h.Counts.NumConstraints,
		NonZeros: h.NonZeros, MatrixNonZeros: h.MatrixNonZeros,
	}
}

// hintStore is the in-memory map of hints, written through to a file when it has one.
type hintStore struct {
	path string
	mu   sync.Mutex
	m    map[prover.CircuitID]Hint
}

// openHints reads path (missing or unreadable: start empty; hints are only an optimisation).
func openHints(dir string) *hintStore {
	s := &hintStore{m: make(map[prover.CircuitID]Hint)}
	if dir == "" {
		return s
	}
	s.path = filepath.Join(dir, "hints.json")
	if data, err := os.ReadFile(s.path); err == nil {
		if json.Unmarshal(data, &s.m) != nil {
			s.m = make(map[prover.CircuitID]Hint)
		}
	}
	return s
}

func (s *hintStore) get(id prover.CircuitID) (Hint, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	h, ok := s.m[id]
	return h, ok
}

func (s *hintStore) put(id prover.CircuitID, h Hint) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if old, ok := s.m[id]; ok && old == h {
		return nil
	}
	s.m[id] = h
	if s.path == "" {
		return nil
	}
	data, err := json.MarshalIndent(s.m, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(s.path), 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(s.path), "hints.json.tmp*")
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), s.path)
	}
	if err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("pipeline: writing capacity hints: %w", err)
	}
	return nil
}
