package cuzk

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/snarkpipe/snarkpipe/sealer"
)

// jobIndex maps the job ids this endpoint hands out to the service's job ids. cuzk uses
// the caller's request_id verbatim as the job id, so AwaitProof and CancelProof accept
// it; without a request_id the service's own id is handed out. The newest submission of a
// request_id wins (the service reruns a key whose job failed). At most max mappings are
// kept, oldest dropped first; an id not in the index is tried as a service job id.
type jobIndex struct {
	max int

	mu    sync.Mutex
	ids   map[string]sealer.JobID
	order []string // insertion order, for eviction
	// seen holds the service jobs already watched (bounded like ids), so that an
	// idempotent resubmission is not counted twice.
	seen      map[sealer.JobID]bool
	seenOrder []sealer.JobID

	completed, failed atomic.Uint64
}

func newJobIndex(max int) *jobIndex {
	return &jobIndex{max: max, ids: make(map[string]sealer.JobID), seen: make(map[sealer.JobID]bool)}
}

// add records a submission and returns the job id to hand out. first reports whether
// the service job is new to this endpoint (an idempotent resubmission returns the job
// already running).
func (x *jobIndex) add(requestID string, id sealer.JobID) (jobID string, first bool) {
	x.mu.Lock()
	defer x.mu.Unlock()
	first = !x.seen[id]
	if first {
		x.seen[id] = true
		x.seenOrder = append(x.seenOrder, id)
		if len(x.seenOrder) > x.max {
			delete(x.seen, x.seenOrder[0])
			x.seenOrder = x.seenOrder[1:]
		}
	}
	if requestID == "" {
		return string(id), first
	}
	if _, ok := x.ids[requestID]; !ok {
		x.order = append(x.order, requestID)
	}
	x.ids[requestID] = id
	for len(x.order) > x.max {
		delete(x.ids, x.order[0])
		x.order = x.order[1:]
	}
	return requestID, first
}

// lookup returns the service job id behind a handed-out job id.
func (x *jobIndex) lookup(jobID string) sealer.JobID {
	x.mu.Lock()
	defer x.mu.Unlock()
	if id, ok := x.ids[jobID]; ok {
		return id
	}
	return sealer.JobID(jobID)
}

// watch counts a job's outcome for GetStatus and GetMetrics once it finishes. It runs
// in its own goroutine and ends with the job or with ctx.
func (x *jobIndex) watch(ctx context.Context, p Prover, id sealer.JobID) {
	_, err := p.Await(ctx, id)
	if ctx.Err() != nil {
		return // the endpoint stopped; the outcome is no longer reported
	}
	switch {
	case err == nil:
		x.completed.Add(1)
	case sealer.CodeOf(err) != sealer.CodeNotFound && sealer.CodeOf(err) != sealer.CodeCancelled:
		x.failed.Add(1)
	}
}
