package kit

import (
	"context"
	"fmt"
	"testing"

	"github.com/filecoin-project/lotus/storage/sealer/sealtasks"
	"github.com/filecoin-project/lotus/storage/sealer/storiface"
)

// callState is one call in lotus's "ret-wait": scheduled, waiting for its Return.
type callState struct {
	done   chan struct{}
	result C2Result
	// release frees the call's resources on its worker (nil until scheduled).
	release func()
}

// C2Result is what ReturnSealCommit2 delivered for a call.
type C2Result struct {
	CallID storiface.CallID
	Proof  []byte
	// Err is the worker's CallError (nil on success).
	Err *storiface.CallError
}

// SealCommit2 schedules sector's C2 on a sealing worker that takes seal/v0/commit/2 and
// returns its CallID; the result arrives through ReturnSealCommit2 (AwaitC2).
func (m *LotusMiner) SealCommit2(ctx context.Context, s *Sector) (storiface.CallID, error) {
	m.AddSectors(s)
	w, release, err := m.pickWorker(ctx, "sealing", sealtasks.TTCommit2, s.SealProof)
	if err != nil {
		return storiface.CallID{}, err
	}
	id, err := w.api.SealCommit2(ctx, storiface.SectorRef{ID: s.ID, ProofType: s.SealProof}, s.C1)
	if err != nil {
		release()
		return storiface.CallID{}, err
	}
	if id.Sector != s.ID {
		release()
		return id, fmt.Errorf("kit: worker answered CallID %v for sector %v", id, s.ID)
	}
	// The resources are held until the Return, which may have beaten the CallID.
	m.mu.Lock()
	c, ok := m.calls[id]
	if !ok {
		c = &callState{done: make(chan struct{})}
		m.calls[id] = c
	}
	c.release = release
	returned := isClosed(c.done)
	m.mu.Unlock()
	if returned {
		release()
	}
	return id, nil
}

func isClosed(ch chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// returnC2 is ReturnSealCommit2: the first result of a call is kept, a second one is
// refused as lotus's Manager refuses it.
func (m *LotusMiner) returnC2(id storiface.CallID, proof []byte, cerr *storiface.CallError) error {
	m.mu.Lock()
	c, ok := m.calls[id]
	if !ok {
		c = &callState{done: make(chan struct{})}
		m.calls[id] = c
	}
	if isClosed(c.done) {
		m.dups++
		m.mu.Unlock()
		return fmt.Errorf("result for call %v already reported", id)
	}
	c.result = C2Result{CallID: id, Proof: append([]byte(nil), proof...), Err: cerr}
	close(c.done)
	release := c.release
	m.mu.Unlock()
	if release != nil {
		release()
	}
	return nil
}

// AwaitC2 waits for the Return of call id.
func (m *LotusMiner) AwaitC2(ctx context.Context, id storiface.CallID) (C2Result, error) {
	m.mu.Lock()
	c, ok := m.calls[id]
	if !ok {
		c = &callState{done: make(chan struct{})}
		m.calls[id] = c
	}
	m.mu.Unlock()
	select {
	case <-c.done:
		return c.result, nil
	case <-ctx.Done():
		return C2Result{}, fmt.Errorf("kit: no ReturnSealCommit2 for %v: %w", id, ctx.Err())
	}
}

// Returned reports whether call id has had its Return.
func (m *LotusMiner) Returned(id storiface.CallID) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	c, ok := m.calls[id]
	return ok && isClosed(c.done)
}

// DuplicateReturns counts Returns refused because their call had already been reported.
func (m *LotusMiner) DuplicateReturns() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.dups
}

// Commit2 schedules sector's C2, waits for its Return and verifies the proof as the miner
// does before submitting it (VerifySeal, here with the dev verifying key). A CallError or
// a proof that does not verify is an error.
func (m *LotusMiner) Commit2(ctx context.Context, t testing.TB, s *Sector) ([]byte, error) {
	t.Helper()
	id, err := m.SealCommit2(ctx, s)
	if err != nil {
		return nil, err
	}
	r, err := m.AwaitC2(ctx, id)
	if err != nil {
		return nil, err
	}
	if r.Err != nil {
		return nil, fmt.Errorf("kit: C2 of %v failed: code %d: %s", s.ID, r.Err.Code, r.Err.Message)
	}
	if err := VerifySeal(t, s.C1, r.Proof); err != nil {
		return r.Proof, fmt.Errorf("kit: C2 proof of %v does not verify: %w", s.ID, err)
	}
	return r.Proof, nil
}
