package lotus_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/filecoin-project/go-state-types/abi"
	"github.com/filecoin-project/lotus/storage/sealer/storiface"

	"github.com/snarkpipe/snarkpipe/rpc/lotus"
)

// TestCrashDuringC2ReportsWorkerRestart: a worker dies while proving (abandoned without
// finishing, as a killed process); the next worker started over the same state directory
// tells the miner ErrTempWorkerRestart (101) for that call, once, and keeps the Session UUID.
func TestCrashDuringC2ReportsWorkerRestart(t *testing.T) {
	m := newTestMiner(t)
	dir := t.TempDir()
	cfg := testConfig()
	cfg.Roles = []lotus.Role{lotus.RoleC2}
	stuck := &fakeProver{gate: make(chan struct{})}
	a, crash := startWorker(t, cfg, dir, stuck, m)
	ctx := testCtx(t, 30*time.Second)
	ci, err := dialWorker(t, a.url(lotus.RoleC2), minerToken).SealCommit2(ctx, storiface.SectorRef{ID: abi.SectorID{Miner: 1000, Number: 9}, ProofType: 8}, []byte("c1"))
	if err != nil {
		t.Fatal(err)
	}
	session := a.Sessions()[lotus.RoleC2]
	crash()
	m.expectNoReturn(t, 100*time.Millisecond)

	b, stopB := startWorker(t, cfg, dir, &fakeProver{}, m)
	r := m.waitReturn(t, 10*time.Second)
	if r.ID != ci || r.Err == nil || r.Err.Code != storiface.ErrTempWorkerRestart || r.Proof != nil {
		t.Fatalf("after restart the miner got %+v, want ErrTempWorkerRestart for %v", r, ci)
	}
	if !strings.Contains(r.Err.Message, "restarted") {
		t.Fatalf("message %q", r.Err.Message)
	}
	if got := b.Sessions()[lotus.RoleC2]; got != session {
		t.Fatalf("session changed across restart: %s → %s", session, got)
	}
	waitNoRecords(t, filepath.Join(dir, "c2", "calls"))
	stopB()

	startWorker(t, cfg, dir, &fakeProver{}, m)
	m.expectNoReturn(t, 300*time.Millisecond)
	if m.dups != 0 {
		t.Fatalf("%d duplicate returns", m.dups)
	}
}

// TestFinishedButUnreportedIsResent: a proof finished while the miner refused results is
// kept on disk; after a crash the next worker sends that proof (not a restart error).
func TestFinishedButUnreportedIsResent(t *testing.T) {
	m := newTestMiner(t)
	m.failNext = 1 << 30
	dir := t.TempDir()
	cfg := testConfig()
	cfg.Roles = []lotus.Role{lotus.RoleC2}
	a, crash := startWorker(t, cfg, dir, &fakeProver{}, m)
	ctx := testCtx(t, 30*time.Second)
	ci, err := dialWorker(t, a.url(lotus.RoleC2), minerToken).SealCommit2(ctx, storiface.SectorRef{ID: abi.SectorID{Miner: 1000, Number: 7}, ProofType: 8}, []byte("c1-7"))
	if err != nil {
		t.Fatal(err)
	}
	record := filepath.Join(dir, "c2", "calls", ci.String()+".json")
	deadline := time.Now().Add(5 * time.Second)
	for {
		b, _ := os.ReadFile(record)
		if bytes.Contains(b, []byte(`"State":"done"`)) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("record %s never reached done: %s", record, b)
		}
		time.Sleep(5 * time.Millisecond)
	}
	crash()
	m.mu.Lock()
	m.failNext = 0
	m.mu.Unlock()

	startWorker(t, cfg, dir, &fakeProver{}, m)
	r := m.waitReturn(t, 10*time.Second)
	if r.ID != ci || r.Err != nil || !bytes.Equal(r.Proof, fakeC2Proof([]byte("c1-7"), 7)) {
		t.Fatalf("resent %+v", r)
	}
	m.expectNoReturn(t, 200*time.Millisecond)
}

// TestCorruptRecordStillAnswered: a record torn or edited beyond reading still names its
// call in its file name; the miner hears ErrTempWorkerRestart instead of nothing.
func TestCorruptRecordStillAnswered(t *testing.T) {
	m := newTestMiner(t)
	dir := t.TempDir()
	calls := filepath.Join(dir, "c2", "calls")
	if err := os.MkdirAll(calls, 0o700); err != nil {
		t.Fatal(err)
	}
	name := "1000-12-6ba7b810-9dad-11d1-80b4-00c04fd430c8"
	for file, content := range map[string]string{
		name + ".json":    `{"ID":{"Sector":{"Miner":10`, // torn
		"tmp-123":         `{}`,                          // interrupted write: removed
		"not-a-call.json": `{}`,                          // not ours: ignored
	} {
		if err := os.WriteFile(filepath.Join(calls, file), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	cfg := testConfig()
	cfg.Roles = []lotus.Role{lotus.RoleC2}
	startWorker(t, cfg, dir, &fakeProver{}, m)
	r := m.waitReturn(t, 10*time.Second)
	if r.ID.String() != name || r.Err == nil || r.Err.Code != storiface.ErrTempWorkerRestart {
		t.Fatalf("got %+v", r)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		entries, _ := os.ReadDir(calls)
		if len(entries) == 1 && entries[0].Name() == "not-a-call.json" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("left in %s: %v", calls, entries)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestDrainFinishesCalls: Drain retires the roles at once (zero Session, new calls
// refused) and returns when the call in flight has been proved and accepted by the miner.
func TestDrainFinishesCalls(t *testing.T) {
	m := newTestMiner(t)
	cfg := testConfig()
	cfg.Roles = []lotus.Role{lotus.RoleC2}
	p := &fakeProver{gate: make(chan struct{})}
	w, _ := startWorker(t, cfg, t.TempDir(), p, m)
	ctx := testCtx(t, 30*time.Second)
	wc := dialWorker(t, w.url(lotus.RoleC2), minerToken)
	sector := storiface.SectorRef{ID: abi.SectorID{Miner: 1000, Number: 11}, ProofType: 8}
	ci, err := wc.SealCommit2(ctx, sector, []byte("c1-11"))
	if err != nil {
		t.Fatal(err)
	}
	drained := make(chan error, 1)
	go func() { drained <- w.Drain(ctx) }()
	deadline := time.Now().Add(5 * time.Second)
	for {
		s, err := wc.Session(ctx)
		if err == nil && s.String() == "00000000-0000-0000-0000-000000000000" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("Session while draining: %v, %v", s, err)
		}
		time.Sleep(5 * time.Millisecond)
	}
	if _, err := wc.SealCommit2(ctx, sector, []byte("c1-11")); err == nil {
		t.Fatal("draining worker accepted a new C2")
	}
	select {
	case err := <-drained:
		t.Fatalf("Drain returned with a call in flight: %v", err)
	case <-time.After(100 * time.Millisecond):
	}
	close(p.gate)
	if err := <-drained; err != nil {
		t.Fatal(err)
	}
	if r := m.waitReturn(t, time.Second); r.ID != ci || r.Err != nil {
		t.Fatalf("returned %+v", r)
	}
}
