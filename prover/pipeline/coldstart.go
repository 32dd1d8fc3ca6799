package pipeline

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/snarkpipe/snarkpipe/prover"
	"github.com/snarkpipe/snarkpipe/prover/r1cs"
	"github.com/snarkpipe/snarkpipe/prover/srs"
)

// Cold-start recording.
//
// The recording key is the hash of a synthesis, so the store can only be searched for a
// recording after one synthesis, and a recording needs another when nothing is found. At
// full scale each synthesis costs minutes, but not equally: a recorder whose buffers
// start empty spends a large part of its time growing them (copying its matrices again
// and again: 40–60 % on the 2 KiB PoRep circuit), more than the whole hash-only
// synthesis costs. So:
//
//   - The hash-only synthesis also counts the rows, variables and terms (merged, after
//     hashing the raw ones), and a recording that follows it is made into buffers of
//     exactly that size: no growth, no spare capacity.
//   - When the id has a capacity hint (from an earlier recording: the recordings were
//     deleted, trimmed by the disk budget, or kept in memory only) and the store holds no
//     recording of the id under any key (nothing on disk can match), the buffer sizes are
//     known without hashing first: one synthesis into the recorder and the hasher together
//     gives the key and the recording (recordOnce).
//   - Otherwise (a first start has no hint; a restart has its recording on disk) the
//     hash-only synthesis comes first, then the disk, then a pre-sized recording.

// recordOnce learns c's key and recording from one synthesis into buffers of the given
// capacity, and keeps the recording for the load that follows admission (which saves it
// in the background).
func (cs *circuits) recordOnce(c prover.Circuit, capacity r1cs.Capacity) (Hint, error) {
	id := c.ID()
	key, shape, err := cs.record(c, capacity)
	if err != nil {
		return Hint{}, err
	}
	cs.count("recorded")
	return cs.setKey(id, key, heldShape{shape: shape, unsaved: cs.store != nil})
}

// saveIfAbsent writes the recording of (id, key) to the store unless its file exists
// (another process may have saved it meanwhile). It is recordingSaver's writer.
func (cs *circuits) saveIfAbsent(id prover.CircuitID, key srs.RecordingKey, s *r1cs.Shape) error {
	if cs.store == nil {
		return nil
	}
	if _, err := os.Stat(filepath.Join(cs.store.Dir, cs.store.FileName(id, key))); err == nil {
		return nil
	}
	return cs.store.Save(id, key, s)
}

// storeMayHold reports whether the store may hold a usable recording of id: a file named
// for id under any key, in the current shape-file version. Only its absence is certain;
// a directory that cannot be read counts as possibly holding one, so the caller takes
// the path that looks the key up (and reports a real error there).
func (cs *circuits) storeMayHold(id prover.CircuitID) bool {
	if cs.store == nil {
		return false
	}
	prefix, suffix := recordingNameAround(*cs.store, id)
	entries, err := os.ReadDir(cs.store.Dir)
	if errors.Is(err, fs.ErrNotExist) {
		return false
	}
	if err != nil {
		return true
	}
	keyLen := len(srs.RecordingKey{}.String())
	for _, e := range entries {
		name := e.Name()
		if len(name) != len(prefix)+keyLen+len(suffix) || !strings.HasPrefix(name, prefix) || !strings.HasSuffix(name, suffix) {
			continue
		}
		if isLowerHex(name[len(prefix) : len(prefix)+keyLen]) {
			return true
		}
	}
	return false
}

// recordingNameAround returns what the store's file names of id have before and after the
// key, found by naming two keys that differ in every hex digit (the store owns the name
// format; this only relies on the key appearing in it as its hex string).
func recordingNameAround(store srs.Recordings, id prover.CircuitID) (prefix, suffix string) {
	var lo, hi srs.RecordingKey
	for i := range hi {
		hi[i] = 0xff
	}
	a, b := store.FileName(id, lo), store.FileName(id, hi)
	p := 0
	for p < len(a) && p < len(b) && a[p] == b[p] {
		p++
	}
	s := 0
	for s < len(a)-p && s < len(b)-p && a[len(a)-1-s] == b[len(b)-1-s] {
		s++
	}
	return a[:p], a[len(a)-s:]
}

func isLowerHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}
