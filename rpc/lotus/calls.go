package lotus

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/filecoin-project/go-state-types/abi"
	"github.com/filecoin-project/lotus/storage/sealer/storiface"
	"github.com/google/uuid"
)

// callState is where an asynchronous call stands on disk. A call that has been reported to
// the miner has no record at all.
type callState string

const (
	callStarted callState = "started" // accepted, no result yet
	callDone    callState = "done"    // result known, not yet accepted by the miner
)

// callRecord is one tracked call, one JSON file named after the CallID.
type callRecord struct {
	ID     storiface.CallID
	Method string // the worker method, e.g. "SealCommit2"
	State  callState
	Proof  []byte               `json:",omitempty"`
	Error  *storiface.CallError `json:",omitempty"`
}

// callStore persists call records so that a crash never leaves a call unanswered: on the
// next start, started calls are answered with ErrTempWorkerRestart and done ones re-sent.
// Every write is a new file fsynced and renamed over the old one.
type callStore struct {
	dir string
	mu  sync.Mutex
}

const recordSuffix = ".json"

func openCallStore(dir string) (*callStore, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("lotus: call store: %w", err)
	}
	return &callStore{dir: dir}, nil
}

// fileName is the CallID's lotus string form (miner-number-uuid), parseable back.
func (s *callStore) fileName(id storiface.CallID) string {
	return filepath.Join(s.dir, id.String()+recordSuffix)
}

func (s *callStore) start(id storiface.CallID, method string) error {
	return s.write(&callRecord{ID: id, Method: method, State: callStarted})
}

func (s *callStore) done(id storiface.CallID, method string, proof []byte, cerr *storiface.CallError) error {
	return s.write(&callRecord{ID: id, Method: method, State: callDone, Proof: proof, Error: cerr})
}

// returned forgets a call once the miner accepted its result.
func (s *callStore) returned(id storiface.CallID) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	err := os.Remove(s.fileName(id))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("lotus: forget call %s: %w", id, err)
	}
	return syncDir(s.dir)
}

func (s *callStore) write(r *callRecord) error {
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	f, err := os.CreateTemp(s.dir, "tmp-*")
	if err != nil {
		return fmt.Errorf("lotus: record call %s: %w", r.ID, err)
	}
	tmp := f.Name()
	_, werr := f.Write(b)
	if werr == nil {
		werr = f.Sync()
	}
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(tmp, s.fileName(r.ID))
	}
	if werr != nil {
		os.Remove(tmp)
		return fmt.Errorf("lotus: record call %s: %w", r.ID, werr)
	}
	return syncDir(s.dir)
}

// list returns every unreported call. A record that cannot be read (torn by a crash of
// the file system, edited by hand) still names its call in its file name: it is returned
// as started, so the miner hears ErrTempWorkerRestart rather than nothing.
func (s *callStore) list() ([]*callRecord, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	entries, err := os.ReadDir(s.dir)
	if err != nil {
		return nil, fmt.Errorf("lotus: list calls: %w", err)
	}
	var out []*callRecord
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, "tmp-") {
			os.Remove(filepath.Join(s.dir, name)) // an interrupted write; its previous state is intact
			continue
		}
		idText, ok := strings.CutSuffix(name, recordSuffix)
		if !ok || e.IsDir() {
			continue
		}
		id, err := parseCallID(idText)
		if err != nil {
			continue // not ours
		}
		out = append(out, readRecord(filepath.Join(s.dir, name), id))
	}
	return out, nil
}

func readRecord(path string, id storiface.CallID) *callRecord {
	fallback := &callRecord{ID: id, Method: methodSealCommit2, State: callStarted}
	b, err := os.ReadFile(path)
	if err != nil {
		return fallback
	}
	var r callRecord
	if err := json.Unmarshal(b, &r); err != nil || r.ID != id || (r.State != callStarted && r.State != callDone) {
		return fallback
	}
	if r.Method == "" {
		r.Method = methodSealCommit2
	}
	return &r
}

// parseCallID parses CallID.String(): "<miner>-<number>-<uuid>", canonical form only.
func parseCallID(s string) (storiface.CallID, error) {
	parts := strings.SplitN(s, "-", 3)
	if len(parts) != 3 {
		return storiface.CallID{}, fmt.Errorf("lotus: call id %q", s)
	}
	miner, err1 := strconv.ParseUint(parts[0], 10, 64)
	num, err2 := strconv.ParseUint(parts[1], 10, 64)
	u, err3 := uuid.Parse(parts[2])
	if err := errors.Join(err1, err2, err3); err != nil {
		return storiface.CallID{}, fmt.Errorf("lotus: call id %q: %w", s, err)
	}
	id := storiface.CallID{Sector: abi.SectorID{Miner: abi.ActorID(miner), Number: abi.SectorNumber(num)}, ID: u}
	if id.String() != s {
		// Only the canonical form names a record: returned() removes that name.
		return storiface.CallID{}, fmt.Errorf("lotus: call id %q is not in canonical form", s)
	}
	return id, nil
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
