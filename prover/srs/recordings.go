package srs

import (
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/snarkpipe/snarkpipe/prover"
	"github.com/snarkpipe/snarkpipe/prover/r1cs"
)

// RecordingKey identifies one synthesis of a circuit id: a hash of everything the
// circuit's Synthesize emits (allocation order and every row's raw terms), computed by the
// caller without recording. A changed gadget produces another key and so another file; a
// stale recording is never found under the new key.
type RecordingKey [16]byte

func (k RecordingKey) String() string { return hex.EncodeToString(k[:]) }

// ParseRecordingKey reads the 32 hex digits String writes.
func ParseRecordingKey(s string) (RecordingKey, error) {
	var k RecordingKey
	if len(s) != 2*len(k) {
		return k, fmt.Errorf("srs: recording key %q: want %d hex digits", s, 2*len(k))
	}
	if _, err := hex.Decode(k[:], []byte(s)); err != nil {
		return k, fmt.Errorf("srs: recording key %q: %w", s, err)
	}
	return k, nil
}

// Recordings is a directory of recorded shapes (r1cs shape files), one per circuit id and
// recording key, kept under a disk budget. It is deliberately not the official parameter
// directory: files here are ours, may be deleted at any time, and are re-created on demand.
type Recordings struct {
	Dir string
	// MaxBytes bounds the directory's recordings; after a save, the least recently used
	// files (by modification time, which Load refreshes) are removed until the total fits.
	// The file just saved is always kept. ≤ 0: no bound.
	MaxBytes int64
}

const recordingExt = ".r1cs"

// FileName is the file name of a recording: the circuit id (characters outside
// [A-Za-z0-9._-] replaced), the key, and the shape file format version.
func (r Recordings) FileName(id prover.CircuitID, key RecordingKey) string {
	clean := strings.Map(func(c rune) rune {
		if c == '-' || c == '_' || c == '.' || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') || ('0' <= c && c <= '9') {
			return c
		}
		return '_'
	}, string(id))
	if len(clean) > 100 {
		clean = clean[:100]
	}
	return fmt.Sprintf("%s-%s.v%d%s", clean, key, r1cs.ShapeFileVersion, recordingExt)
}

// ErrNoRecording reports that no usable recording exists for a key.
var ErrNoRecording = errors.New("srs: no recording")

// Load reads the recording of (id, key). A missing file gives ErrNoRecording; a file that
// fails its checksum or validation is deleted and also gives ErrNoRecording (wrapping the
// cause), so the caller records the circuit again.
func (r Recordings) Load(id prover.CircuitID, key RecordingKey) (*r1cs.Shape, error) {
	path := filepath.Join(r.Dir, r.FileName(id, key))
	s, err := r1cs.ReadShapeFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, ErrNoRecording
	case errors.Is(err, r1cs.ErrShapeFileCorrupt) || errors.Is(err, r1cs.ErrShapeFileVersion):
		os.Remove(path)
		return nil, fmt.Errorf("%w: %w", ErrNoRecording, err)
	case err != nil:
		return nil, err
	}
	now := time.Now()
	os.Chtimes(path, now, now) // LRU order for the disk budget; failure only affects eviction order
	return s, nil
}

// Save writes the recording of (id, key) atomically, then enforces the disk budget.
func (r Recordings) Save(id prover.CircuitID, key RecordingKey, s *r1cs.Shape) error {
	if err := os.MkdirAll(r.Dir, 0o755); err != nil {
		return fmt.Errorf("srs: recordings directory: %w", err)
	}
	name := r.FileName(id, key)
	if err := r1cs.WriteShapeFile(filepath.Join(r.Dir, name), s); err != nil {
		return err
	}
	return r.trim(name)
}

// trim removes least recently used recordings (never keep) until the total fits.
func (r Recordings) trim(keep string) error {
	if r.MaxBytes <= 0 {
		return nil
	}
	entries, err := os.ReadDir(r.Dir)
	if err != nil {
		return fmt.Errorf("srs: recordings directory: %w", err)
	}
	type file struct {
		name string
		size int64
		mod  time.Time
	}
	var files []file
	var total int64
	for _, e := range entries {
		if !e.Type().IsRegular() || !strings.HasSuffix(e.Name(), recordingExt) {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue
		}
		files = append(files, file{e.Name(), info.Size(), info.ModTime()})
		total += info.Size()
	}
	sort.Slice(files, func(i, j int) bool { return files[i].mod.Before(files[j].mod) })
	for _, f := range files {
		if total <= r.MaxBytes {
			break
		}
		if f.name == keep {
			continue
		}
		if err := os.Remove(filepath.Join(r.Dir, f.name)); err == nil {
			total -= f.size
		}
	}
	return nil
}
