package cuzk

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"google.golang.org/grpc/status"

	"github.com/snarkpipe/snarkpipe/rpc/cuzk/cuzkpb"
	"github.com/snarkpipe/snarkpipe/sealer"
)

// engine implements cuzkpb.ProvingEngineServer on a Prover.
type engine struct {
	cuzkpb.UnimplementedProvingEngineServer

	svc   Prover
	jobs  *jobIndex
	log   *slog.Logger
	start time.Time

	// ctx bounds the outcome watchers; stopWatchers cancels it.
	ctx          context.Context
	stopWatchers context.CancelFunc
}

func newEngine(svc Prover, jobIDs int, log *slog.Logger) *engine {
	ctx, cancel := context.WithCancel(context.Background())
	return &engine{svc: svc, jobs: newJobIndex(jobIDs), log: log, start: time.Now(), ctx: ctx, stopWatchers: cancel}
}

// submit admits a request and returns the job id handed to the caller.
func (e *engine) submit(ctx context.Context, req *cuzkpb.SubmitProofRequest) (string, sealer.JobID, error) {
	id, err := submit(ctx, e.svc, req)
	if err != nil {
		if _, ok := status.FromError(err); ok {
			// Refused before the service saw it (the service logs its own refusals).
			e.log.Warn("cuzk: request refused", "request", req.GetRequestId(), "err", err)
			return "", "", err
		}
		if ctx.Err() != nil && sealer.CodeOf(err) != sealer.CodeInvalidInput {
			return "", "", status.FromContextError(ctx.Err()).Err() // the caller went away
		}
		return "", "", statusError(err)
	}
	jobID, first := e.jobs.add(req.GetRequestId(), id)
	if first {
		e.log.Info("cuzk: request accepted", "request", req.GetRequestId(), "job", id)
		go e.jobs.watch(e.ctx, e.svc, id)
	}
	return jobID, id, nil
}

// SubmitProof queues a proof and answers at once.
func (e *engine) SubmitProof(ctx context.Context, req *cuzkpb.SubmitProofRequest) (*cuzkpb.SubmitProofResponse, error) {
	jobID, _, err := e.submit(ctx, req)
	if err != nil {
		return nil, err
	}
	return &cuzkpb.SubmitProofResponse{JobId: jobID, QueuePosition: e.queued(ctx)}, nil
}

// queued counts the service's jobs waiting for a worker, as the submitted job's position.
func (e *engine) queued(ctx context.Context) uint32 {
	st, err := e.svc.Status(ctx)
	if err != nil || st == nil {
		return 0
	}
	var n int
	for _, q := range st.Queues {
		n += q.Queued
	}
	return uint32(n)
}

// AwaitProof waits for a job, at most timeout_ms when it is not zero (then TIMEOUT; the
// job keeps running).
func (e *engine) AwaitProof(ctx context.Context, req *cuzkpb.AwaitProofRequest) (*cuzkpb.AwaitProofResponse, error) {
	if req.GetJobId() == "" {
		return nil, invalidArgument("missing job_id")
	}
	return e.await(ctx, req.GetJobId(), e.jobs.lookup(req.GetJobId()), time.Duration(req.GetTimeoutMs())*time.Millisecond)
}

// Prove submits and waits. If the caller goes away the job keeps running, as in cuzk:
// Curio retries with the same request_id and gets the running job back.
func (e *engine) Prove(ctx context.Context, req *cuzkpb.ProveRequest) (*cuzkpb.ProveResponse, error) {
	if req.GetSubmit() == nil {
		return nil, invalidArgument("missing submit field")
	}
	jobID, id, err := e.submit(ctx, req.GetSubmit())
	if err != nil {
		return nil, err
	}
	res, err := e.await(ctx, jobID, id, 0)
	if err != nil {
		return nil, err
	}
	return &cuzkpb.ProveResponse{Result: res}, nil
}

func (e *engine) await(ctx context.Context, jobID string, id sealer.JobID, timeout time.Duration) (*cuzkpb.AwaitProofResponse, error) {
	wctx := ctx
	if timeout > 0 {
		var cancel context.CancelFunc
		wctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	res, err := e.svc.Await(wctx, id)
	out := &cuzkpb.AwaitProofResponse{JobId: jobID}
	switch {
	case err == nil:
	case ctx.Err() != nil:
		return nil, status.FromContextError(ctx.Err()).Err()
	case wctx.Err() != nil:
		out.Status = cuzkpb.AwaitProofResponse_TIMEOUT
		return out, nil
	case sealer.CodeOf(err) == sealer.CodeNotFound:
		return nil, statusError(err)
	case sealer.CodeOf(err) == sealer.CodeCancelled:
		out.Status, out.ErrorMessage = cuzkpb.AwaitProofResponse_CANCELLED, err.Error()
		return out, nil
	default:
		e.log.Warn("cuzk: job failed", "job", jobID, "err", err)
		out.Status, out.ErrorMessage = cuzkpb.AwaitProofResponse_FAILED, err.Error()
		return out, nil
	}
	proof, err := proofBytes(res)
	if err != nil {
		out.Status, out.ErrorMessage = cuzkpb.AwaitProofResponse_FAILED, err.Error()
		return out, nil
	}
	out.Status, out.Proof = cuzkpb.AwaitProofResponse_COMPLETED, proof
	setTimings(out, &res.Info)
	return out, nil
}

// proofBytes is the proof Curio expects: SealCommit2's or SnapDeals' partition proofs
// (192 bytes each, concatenated), or the PoSt proofs concatenated (Winning: one; Window:
// the requested partition's). cuzk has no way to report skipped sectors, so a PoSt result
// that skipped some is a failure.
func proofBytes(res *sealer.JobResult) ([]byte, error) {
	if res.PoSt == nil {
		if len(res.Proof) == 0 {
			return nil, fmt.Errorf("cuzk: job %s finished without a proof", res.Info.ID)
		}
		return res.Proof, nil
	}
	if len(res.PoSt.Skipped) > 0 {
		return nil, fmt.Errorf("cuzk: job %s skipped sectors %v, which this protocol cannot report", res.Info.ID, res.PoSt.Skipped)
	}
	var out []byte
	for _, p := range res.PoSt.Proofs {
		out = append(out, p.ProofBytes...)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("cuzk: job %s finished without a proof", res.Info.ID)
	}
	return out, nil
}

// setTimings reports the job's stage times: queue wait until its first partition started,
// synthesis and proving summed over partitions, total from submission to finish.
func setTimings(out *cuzkpb.AwaitProofResponse, info *sealer.JobInfo) {
	var queue time.Duration = -1
	var synth, prove, total time.Duration
	for _, t := range info.Timings {
		if queue < 0 || t.Queue < queue {
			queue = t.Queue
		}
		synth += t.Synth
		prove += t.Prove
		total = max(total, t.Total)
	}
	if !info.Submitted.IsZero() && info.Finished.After(info.Submitted) {
		total = info.Finished.Sub(info.Submitted)
	}
	out.QueueWaitMs = millis(max(queue, 0))
	out.SynthesisMs = millis(synth)
	out.GpuComputeMs = millis(prove)
	out.TotalMs = millis(total)
}

func millis(d time.Duration) uint64 { return uint64(max(d, 0) / time.Millisecond) }

// CancelProof cancels a job; was_running says it had not finished.
func (e *engine) CancelProof(ctx context.Context, req *cuzkpb.CancelProofRequest) (*cuzkpb.CancelProofResponse, error) {
	if req.GetJobId() == "" {
		return nil, invalidArgument("missing job_id")
	}
	id := e.jobs.lookup(req.GetJobId())
	info, err := e.svc.Job(ctx, id)
	if err != nil {
		return nil, statusError(err)
	}
	if info.State.Final() {
		return &cuzkpb.CancelProofResponse{}, nil
	}
	if err := e.svc.Cancel(ctx, id); err != nil {
		return nil, statusError(err)
	}
	return &cuzkpb.CancelProofResponse{WasRunning: true}, nil
}
