package lotus

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/filecoin-project/go-state-types/abi"
	"github.com/filecoin-project/lotus/storage/sealer/storiface"
	"github.com/google/uuid"
)

// FuzzCallRecord: whatever a record file holds, the store lists the call its name says,
// as started or done, and never panics.
func FuzzCallRecord(f *testing.F) {
	f.Add([]byte(`{"ID":{"Sector":{"Miner":1000,"Number":9},"ID":"6ba7b810-9dad-11d1-80b4-00c04fd430c8"},"Method":"SealCommit2","State":"done","Proof":"AAEC"}`))
	f.Add([]byte(`{"ID":{"Sector":{"Miner":1000,"Number":9},"ID":"6ba7b810-9dad-11d1-80b4-00c04fd430c8"},"State":"started"}`))
	f.Add([]byte(`{"ID":{"Sector":{"Miner":1000,"Number":9},"ID":"6ba7b810-9dad-11d1-80b4-00c04fd430c8"},"Method":"ProveReplicaUpdate2","State":"done","Error":{"Code":0,"Message":"bad"}}`))
	f.Add([]byte(`{"State":"returned"}`))
	f.Add([]byte{})
	id := storiface.CallID{Sector: abi.SectorID{Miner: 1000, Number: 9}, ID: uuid.MustParse("6ba7b810-9dad-11d1-80b4-00c04fd430c8")}
	f.Fuzz(func(t *testing.T, content []byte) {
		dir := t.TempDir()
		s, err := openCallStore(dir)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, id.String()+recordSuffix), content, 0o600); err != nil {
			t.Fatal(err)
		}
		recs, err := s.list()
		if err != nil || len(recs) != 1 || recs[0].ID != id || (recs[0].State != callStarted && recs[0].State != callDone) {
			t.Fatalf("list: %+v, %v", recs, err)
		}
	})
}

// FuzzParseCallID: CallID strings round-trip; anything else is refused without panicking.
func FuzzParseCallID(f *testing.F) {
	f.Add("1000-9-6ba7b810-9dad-11d1-80b4-00c04fd430c8")
	f.Add("0-0-00000000-0000-0000-0000-000000000000")
	f.Add("1-2-3")
	f.Fuzz(func(t *testing.T, s string) {
		id, err := parseCallID(s)
		if err != nil {
			return
		}
		again, err := parseCallID(id.String())
		if err != nil || again != id || id.String() != s {
			t.Fatalf("%q → %v → %v, %v", s, id, again, err)
		}
	})
}

// TestCallStoreLifecycle: start, done and returned leave the expected records.
func TestCallStoreLifecycle(t *testing.T) {
	s, err := openCallStore(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	id := storiface.CallID{Sector: abi.SectorID{Miner: 5, Number: 6}, ID: uuid.New()}
	if err := s.start(id, methodSealCommit2); err != nil {
		t.Fatal(err)
	}
	recs, _ := s.list()
	if len(recs) != 1 || recs[0].State != callStarted {
		t.Fatalf("after start: %+v", recs)
	}
	cerr := &storiface.CallError{Code: storiface.ErrTempUnknown, Message: "busy"}
	if err := s.done(id, methodSealCommit2, nil, cerr); err != nil {
		t.Fatal(err)
	}
	recs, _ = s.list()
	if len(recs) != 1 || recs[0].State != callDone || recs[0].Error == nil || *recs[0].Error != *cerr {
		t.Fatalf("after done: %+v", recs[0])
	}
	if err := s.returned(id); err != nil {
		t.Fatal(err)
	}
	if recs, _ = s.list(); len(recs) != 0 {
		t.Fatalf("after returned: %+v", recs)
	}
	if err := s.returned(id); err != nil {
		t.Fatalf("returned twice: %v", err)
	}
}
