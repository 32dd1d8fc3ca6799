package lotus

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"time"

	"github.com/filecoin-project/lotus/storage/sealer/sealtasks"
	"github.com/filecoin-project/lotus/storage/sealer/storiface"
	"github.com/google/uuid"

	"github.com/snarkpipe/snarkpipe/sealer"
)

const methodSealCommit2 = "SealCommit2"

// sealCommit2 records the call, answers its CallID and proves in the background. The
// record is written before the CallID leaves: a CallID the miner holds always has a
// record, so a crash can never leave it waiting forever.
func (w *roleWorker) sealCommit2(sector storiface.SectorRef, c1o storiface.Commit1Out) (storiface.CallID, error) {
	if err := w.taskEnabled(sealtasks.TTCommit2); err != nil {
		return storiface.UndefCall, err
	}
	ci := storiface.CallID{Sector: sector.ID, ID: uuid.New()}
	w.mu.Lock()
	if w.closed() || w.life.Err() != nil {
		w.mu.Unlock()
		return storiface.UndefCall, errors.New("lotus: worker is shutting down")
	}
	w.running.Add(1)
	w.mu.Unlock()
	if err := w.calls.start(ci, methodSealCommit2); err != nil {
		w.running.Done()
		return storiface.UndefCall, err
	}
	w.callBegin()
	go func() {
		defer w.running.Done()
		w.runSealCommit2(ci, sector, c1o)
	}()
	return ci, nil
}

// runSealCommit2 proves, records the outcome, then reports it. When the worker closes
// first, it stops without recording anything: the next start reports the call with
// ErrTempWorkerRestart, exactly as after a crash.
func (w *roleWorker) runSealCommit2(ci storiface.CallID, sector storiface.SectorRef, c1o storiface.Commit1Out) {
	proof, cerr := w.proveC2(ci, sector, c1o)
	if w.life.Err() != nil {
		w.callEnd()
		return
	}
	if err := w.calls.done(ci, methodSealCommit2, proof, cerr); err != nil {
		w.log.Error("recording C2 result (will report it anyway)", "call", ci.String(), "err", err)
	}
	w.callEnd()
	w.report(&callRecord{ID: ci, Method: methodSealCommit2, State: callDone, Proof: proof, Error: cerr})
}

func (w *roleWorker) proveC2(ci storiface.CallID, sector storiface.SectorRef, c1o storiface.Commit1Out) (storiface.Proof, *storiface.CallError) {
	req := &sealer.SealCommit2Request{Sector: sector.ID, ProofType: sector.ProofType, C1: c1o, Key: c2Key(sector, c1o)}
	id, err := w.prover.SubmitSealCommit2(w.life, req)
	if err != nil {
		return nil, callError(err)
	}
	res, err := w.prover.Await(w.life, id)
	if err != nil {
		return nil, callError(err)
	}
	return res.Proof, nil
}

// c2Key is the service's idempotency key of a C2: the same sector and C1 output (the
// miner asking again after a lost or failed report) joins the job in flight or reuses its
// recent proof instead of proving twice.
func c2Key(sector storiface.SectorRef, c1o []byte) string {
	h := sha256.Sum256(c1o)
	return fmt.Sprintf("lotus-c2-%d-%d-%d-%x", sector.ID.Miner, sector.ID.Number, sector.ProofType, h[:16])
}

// callError maps a service error to the miner's CallError: temporary service errors
// (overloaded, parameters missing, shutting down) become ErrTempUnknown, which the sealing
// state machine retries softly; everything else is ErrUnknown with the message.
func callError(err error) *storiface.CallError {
	code := storiface.ErrUnknown
	if sealer.IsTemporary(err) {
		code = storiface.ErrTempUnknown
	}
	return &storiface.CallError{Code: code, Message: err.Error()}
}

// restartError is what unfinished calls found at start are answered with.
func (w *roleWorker) restartError() *storiface.CallError {
	return &storiface.CallError{Code: storiface.ErrTempWorkerRestart, Message: fmt.Sprintf("worker [Hostname: %s] restarted", w.hostname())}
}

// report sends a result to the miner until it is accepted or the worker closes; accepted
// results are forgotten at once, so a result is reported at most once per process and
// re-sent after a restart only if the miner had not accepted it.
func (w *roleWorker) report(r *callRecord) {
	for attempt := 0; ; attempt++ {
		err := w.returnOnce(r)
		if err == nil {
			if err := w.calls.returned(r.ID); err != nil {
				w.log.Error("forgetting reported call", "call", r.ID.String(), "err", err)
			}
			return
		}
		w.log.Warn("reporting result failed, will retry", "call", r.ID.String(), "attempt", attempt, "err", err)
		select {
		case <-time.After(w.cfg.ReturnRetryInterval):
		case <-w.life.Done():
			return
		}
	}
}

func (w *roleWorker) returnOnce(r *callRecord) error {
	switch r.Method {
	case methodSealCommit2:
		ctx, cancel := context.WithTimeout(w.life, 2*time.Minute)
		defer cancel()
		return w.miner.ReturnSealCommit2(ctx, r.ID, r.Proof, r.Error)
	}
	return fmt.Errorf("lotus: cannot report a %q call", r.Method)
}

// recoverCalls reports what a previous process left: started calls get
// ErrTempWorkerRestart, done ones their recorded result.
func (w *roleWorker) recoverCalls() error {
	recs, err := w.calls.list()
	if err != nil {
		return err
	}
	for _, r := range recs {
		if r.State == callStarted {
			r = &callRecord{ID: r.ID, Method: r.Method, State: callDone, Error: w.restartError()}
			if err := w.calls.done(r.ID, r.Method, nil, r.Error); err != nil {
				w.log.Error("recording restart error", "call", r.ID.String(), "err", err)
			}
		}
		w.log.Info("reporting a call left by the previous process", "call", r.ID.String(), "restart", r.Error != nil && r.Error.Code == storiface.ErrTempWorkerRestart)
		w.running.Add(1)
		go func() {
			defer w.running.Done()
			w.report(r)
		}()
	}
	return nil
}
