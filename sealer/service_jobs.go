package sealer

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"sync"
	"time"

	"github.com/snarkpipe/snarkpipe/prover/pipeline"
	"github.com/snarkpipe/snarkpipe/prover/srs"
)

// job is one admitted request: the pipeline job plus what is needed to turn its result
// into the service's answer.
type job struct {
	info     JobInfo
	pj       *pipeline.Job
	assemble func(pipeline.Result) (*JobResult, error)

	done   chan struct{}
	result *JobResult // set once done, on success
	err    *Error     // set once done, on failure
}

// jobTable remembers admitted jobs: all unfinished ones, and finished ones for ResultTTL
// (at most RecentJobs of them).
type jobTable struct {
	ttl    time.Duration
	recent int
	max    int
	log    *slog.Logger

	mu       sync.Mutex
	next     uint64
	draining bool
	reserved int // admitted requests still being checked, not yet jobs
	jobs     map[JobID]*job
	finished []JobID // oldest first
	keys     map[string]JobID
	inflight sync.WaitGroup
}

func newJobTable(cfg Config) *jobTable {
	return &jobTable{ttl: time.Duration(cfg.ResultTTL), recent: cfg.RecentJobs, max: cfg.MaxJobs, log: discardLog, jobs: make(map[JobID]*job), keys: make(map[string]JobID)}
}

// reservation is a place under max_jobs held by an admitted request while its input is
// decoded and checked: concurrent requests cannot all pass the check and then overshoot.
// It becomes the job's place in add, or is given back by release (a refused request).
type reservation struct {
	t    *jobTable
	done bool // guarded by t.mu
}

// release gives the place back unless add has turned it into a job; safe to call twice.
func (r *reservation) release() {
	r.t.mu.Lock()
	defer r.t.mu.Unlock()
	if !r.done {
		r.done = true
		r.t.reserved--
	}
}

// reserve checks admission before the pipeline is asked, so that a draining or full service
// refuses without work, and holds a place for the request until add or release.
func (t *jobTable) reserve() (*reservation, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.draining {
		return nil, newError(CodeUnavailable, "", nil, "shutting down")
	}
	if n := len(t.jobs) - len(t.finished) + t.reserved; n >= t.max {
		return nil, newError(CodeUnavailable, "", nil, "%d jobs in flight (max_jobs)", n)
	}
	t.reserved++
	return &reservation{t: t}, nil
}

// add registers a submitted pipeline job in the place r held, and watches it.
func (t *jobTable) add(j *job, key string, r *reservation) JobID {
	t.mu.Lock()
	if !r.done {
		r.done = true
		t.reserved--
	}
	t.next++
	j.info.ID = JobID(fmt.Sprintf("%s-%d", j.info.Kind, t.next))
	if key != "" {
		t.keys[key] = j.info.ID
	}
	j.info.State = JobRunning
	j.done = make(chan struct{})
	t.jobs[j.info.ID] = j
	t.inflight.Add(1)
	t.mu.Unlock()
	go t.watch(j)
	return j.info.ID
}

// watch waits for the pipeline job and records its outcome.
func (t *jobTable) watch(j *job) {
	defer t.inflight.Done()
	res, err := j.pj.Await(context.Background())
	var out *JobResult
	if err == nil {
		out, err = j.assemble(res)
	}
	t.mu.Lock()
	j.info.Finished = time.Now()
	if err != nil {
		j.err = classifyJobError(j.info.ProofType, err)
		j.info.State = JobFailed
		if j.err.Code == CodeCancelled {
			j.info.State = JobCancelled
		}
		j.info.Error, j.info.ErrorCode = j.err.Error(), j.err.Code
	} else {
		j.info.State = JobDone
		j.info.Timings = stageTimings(res.Timings)
		j.info.PartitionsDone = j.info.Partitions
		out.Info = j.info
		j.result = out
	}
	close(j.done)
	t.finished = append(t.finished, j.info.ID)
	t.trimLocked(time.Now())
	info := j.info
	t.mu.Unlock()
	t.logFinished(info)
}

// liveInfo is a job's info with, while it runs, the timings of the partitions proved so
// far. Called with t.mu held.
func (j *job) liveInfo() JobInfo {
	info := j.info
	if !info.State.Final() {
		done := j.pj.Progress()
		info.PartitionsDone, info.Timings = len(done), stageTimings(done)
	}
	return info
}

// trimLocked forgets finished jobs beyond RecentJobs or older than ResultTTL.
func (t *jobTable) trimLocked(now time.Time) {
	drop := 0
	for drop < len(t.finished) {
		j := t.jobs[t.finished[drop]]
		if len(t.finished)-drop <= t.recent && now.Sub(j.info.Finished) < t.ttl {
			break
		}
		delete(t.jobs, t.finished[drop])
		for k, id := range t.keys {
			if id == j.info.ID {
				delete(t.keys, k)
			}
		}
		drop++
	}
	t.finished = t.finished[drop:]
}

// byKey returns the job submitted with an idempotency key, unless it failed or was
// cancelled (then the key runs again).
func (t *jobTable) byKey(key string) (JobID, bool) {
	if key == "" {
		return "", false
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	id, ok := t.keys[key]
	if !ok {
		return "", false
	}
	j, ok := t.jobs[id]
	if !ok || j.info.State == JobFailed || j.info.State == JobCancelled {
		delete(t.keys, key)
		return "", false
	}
	return id, true
}

func (t *jobTable) get(id JobID) (*job, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.trimLocked(time.Now())
	j, ok := t.jobs[id]
	if !ok {
		return nil, newError(CodeNotFound, "", nil, "job %q (unknown or expired)", id)
	}
	return j, nil
}

func (t *jobTable) await(ctx context.Context, id JobID) (*JobResult, error) {
	j, err := t.get(id)
	if err != nil {
		return nil, err
	}
	select {
	case <-j.done:
	case <-ctx.Done():
		return nil, newError(CodeCancelled, j.info.ProofType, ctx.Err(), "waiting for job %s (it keeps running)", id)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if j.err != nil {
		return nil, j.err
	}
	r := *j.result
	return &r, nil
}

func (t *jobTable) info(id JobID) (*JobInfo, error) {
	j, err := t.get(id)
	if err != nil {
		return nil, err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	info := j.liveInfo()
	return &info, nil
}

func (t *jobTable) cancel(id JobID) error {
	j, err := t.get(id)
	if err != nil {
		return err
	}
	j.pj.Cancel()
	return nil
}

// snapshot returns per-kind counts and every remembered job, newest first.
func (t *jobTable) snapshot() (map[JobKind]QueueStatus, []JobInfo, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	queues := map[JobKind]QueueStatus{}
	var infos []JobInfo
	for _, j := range t.jobs {
		q := queues[j.info.Kind]
		switch j.info.State {
		case JobQueued:
			q.Queued++
		case JobRunning:
			q.Running++
		case JobDone:
			q.Done++
		default:
			q.Failed++
		}
		queues[j.info.Kind] = q
		infos = append(infos, j.liveInfo())
	}
	sort.Slice(infos, func(a, b int) bool { return infos[a].Submitted.After(infos[b].Submitted) })
	return queues, infos, t.draining
}

// drain stops admission and waits for in-flight jobs until ctx ends; then it cancels the
// rest and waits for them to wind down.
func (t *jobTable) drain(ctx context.Context) error {
	t.mu.Lock()
	t.draining = true
	t.mu.Unlock()
	idle := make(chan struct{})
	go func() { t.inflight.Wait(); close(idle) }()
	select {
	case <-idle:
		return nil
	case <-ctx.Done():
	}
	t.mu.Lock()
	for _, j := range t.jobs {
		if !j.info.State.Final() {
			j.pj.Cancel()
		}
	}
	t.mu.Unlock()
	<-idle
	return fmt.Errorf("sealer: drain deadline reached, running jobs cancelled: %w", ctx.Err())
}

// classifyJobError maps a pipeline or assembly failure to a service error.
func classifyJobError(proofType string, err error) *Error {
	var e *Error
	var load *srs.LoadError
	switch {
	case errors.As(err, &e):
		return e
	case errors.As(err, &load):
		// The operator replaces the file; the same request then succeeds.
		return newError(CodeUnavailable, proofType, err, "parameters cannot be loaded")
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return newError(CodeCancelled, proofType, err, "job cancelled")
	case errors.Is(err, pipeline.ErrClosed):
		return newError(CodeUnavailable, proofType, err, "prover shutting down")
	case errors.Is(err, pipeline.ErrTooLarge):
		return newError(CodeUnsupported, proofType, err, "does not fit this machine's memory budget")
	}
	return newError(CodeInternal, proofType, err, "proving failed")
}

// stageTimings summarises the pipeline's per-partition timings.
func stageTimings(ts []pipeline.PartitionTiming) []StageTiming {
	out := make([]StageTiming, len(ts))
	for i, t := range ts {
		out[i] = StageTiming{
			Partition: i,
			Worker:    t.Worker,
			Queue:     nonNegative(t.SynthStart.Sub(t.Submitted)),
			Synth:     nonNegative(t.SynthEnd.Sub(t.SynthStart)),
			Handoff:   t.Handoff,
			Prove:     nonNegative(t.ProveEnd.Sub(t.ProveStart)),
			Verify:    t.Verify,
			Total:     nonNegative(t.Done.Sub(t.Submitted)),
			Load:      t.Prepare + t.Admission + t.HostLoad + t.Device + t.KeyLoad,
			Witness:   t.Witness + t.Eval,
		}
	}
	return out
}

func nonNegative(d time.Duration) time.Duration { return max(d, 0) }

// timeNow is time.Now, named so that tests read clearly where submission time comes from.
var timeNow = time.Now
