package lotus

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/filecoin-project/go-state-types/abi"
	"github.com/filecoin-project/lotus/storage/sealer/sealtasks"
	"github.com/filecoin-project/lotus/storage/sealer/storiface"
	"github.com/google/uuid"

	"github.com/snarkpipe/snarkpipe/sealer"
)

// proveFunc proves one asynchronous call: the proof bytes, or the CallError the miner gets.
type proveFunc func() ([]byte, *storiface.CallError)

// startCall records an asynchronous call (SealCommit2, ProveReplicaUpdate2), answers its
// CallID and proves in the background. The record is written before the CallID leaves: a
// CallID the miner holds always has a record, so a crash can never leave it waiting
// forever.
func (w *roleWorker) startCall(tt sealtasks.TaskType, method string, sector abi.SectorID, prove proveFunc) (storiface.CallID, error) {
	if err := w.taskEnabled(tt); err != nil {
		return storiface.UndefCall, err
	}
	ci := storiface.CallID{Sector: sector, ID: uuid.New()}
	w.mu.Lock()
	if w.closed() || w.life.Err() != nil {
		w.mu.Unlock()
		return storiface.UndefCall, errors.New("lotus: worker is shutting down")
	}
	w.running.Add(1)
	w.mu.Unlock()
	if err := w.calls.start(ci, method); err != nil {
		w.running.Done()
		return storiface.UndefCall, err
	}
	w.callBegin()
	go func() {
		defer w.running.Done()
		w.runCall(ci, method, prove)
	}()
	return ci, nil
}

// runCall proves, records the outcome, then reports it. When the worker closes first, it
// stops without recording anything: the next start reports the call with
// ErrTempWorkerRestart, exactly as after a crash.
func (w *roleWorker) runCall(ci storiface.CallID, method string, prove proveFunc) {
	proof, cerr := prove()
	if w.life.Err() != nil {
		w.callEnd()
		return
	}
	if err := w.calls.done(ci, method, proof, cerr); err != nil {
		w.log.Error("recording result (will report it anyway)", "call", ci.String(), "method", method, "err", err)
	}
	w.callEnd()
	w.report(&callRecord{ID: ci, Method: method, State: callDone, Proof: proof, Error: cerr})
}

// awaitProof submits through submit and waits for the job's proof; service errors become
// CallErrors.
func (w *roleWorker) awaitProof(submit func(ctx context.Context) (sealer.JobID, error)) ([]byte, *storiface.CallError) {
	id, err := submit(w.life)
	if err != nil {
		return nil, callError(err)
	}
	res, err := w.prover.Await(w.life, id)
	if err != nil {
		return nil, callError(err)
	}
	return res.Proof, nil
}

// callError maps a service error to the miner's CallError: temporary service errors
// (overloaded, parameters missing, shutting down) become ErrTempUnknown, which the sealing
// state machine retries softly; everything else (invalid input, a vanilla proof failing
// its native check) is ErrUnknown with the message, which names the failed check.
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
		w.log.Warn("reporting result failed, will retry", "call", r.ID.String(), "method", r.Method, "attempt", attempt, "err", err)
		select {
		case <-time.After(w.cfg.ReturnRetryInterval):
		case <-w.life.Done():
			return
		}
	}
}

// returnOnce calls the miner's Return method of the call's worker method.
func (w *roleWorker) returnOnce(r *callRecord) error {
	ctx, cancel := context.WithTimeout(w.life, 2*time.Minute)
	defer cancel()
	switch r.Method {
	case methodSealCommit2:
		return w.miner.ReturnSealCommit2(ctx, r.ID, r.Proof, r.Error)
	case methodProveReplicaUpdate2:
		return w.miner.ReturnProveReplicaUpdate2(ctx, r.ID, r.Proof, r.Error)
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
		w.log.Info("reporting a call left by the previous process", "call", r.ID.String(), "method", r.Method, "restart", r.Error != nil && r.Error.Code == storiface.ErrTempWorkerRestart)
		w.running.Add(1)
		go func() {
			defer w.running.Done()
			w.report(r)
		}()
	}
	return nil
}
