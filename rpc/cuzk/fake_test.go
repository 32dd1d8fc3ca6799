package cuzk

import (
	"context"
	"crypto/sha256"
	"fmt"
	"sync"
	"time"

	"github.com/filecoin-project/go-state-types/proof"

	"github.com/snarkpipe/snarkpipe/sealer"
)

// fakeProver stands in for sealer.Service: it records what it was asked, answers with
// deterministic proof bytes and lets tests hold jobs open or fail them.
type fakeProver struct {
	mu        sync.Mutex
	next      int
	jobs      map[sealer.JobID]*fakeJob
	keys      map[string]sealer.JobID
	seals     []*sealer.SealCommit2Request
	posts     []*sealer.PoStRequest
	updates   []*sealer.ReplicaUpdateRequest
	hold      bool  // new jobs wait for release
	fail      error // new jobs fail with this error after admission
	reject    error // submissions are refused with this error
	preload   *sealer.PreloadResult
	preloaded []sealer.ProofTypeRef
	evicted   []sealer.ProofTypeRef
	status    sealer.Status
}

type fakeJob struct {
	info    sealer.JobInfo
	result  *sealer.JobResult
	err     error
	release chan struct{}
	done    chan struct{}
}

func newFakeProver() *fakeProver {
	return &fakeProver{jobs: map[sealer.JobID]*fakeJob{}, keys: map[string]sealer.JobID{}}
}

// fakeProof is what a fake job of this request proves: partitions×192 bytes derived from
// the inputs, so that a test can tell the proof belongs to its request.
func fakeProof(partitions int, inputs ...[]byte) []byte {
	out := make([]byte, 0, partitions*192)
	h := sha256.New()
	for _, in := range inputs {
		h.Write(in)
	}
	var seed [32]byte
	h.Sum(seed[:0])
	for len(out) < partitions*192 {
		seed = sha256.Sum256(seed[:])
		out = append(out, seed[:]...)
	}
	return out[:partitions*192]
}

func (f *fakeProver) add(kind sealer.JobKind, key string, res *sealer.JobResult) (sealer.JobID, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.reject != nil {
		return "", f.reject
	}
	if id, ok := f.keys[key]; ok && key != "" {
		return id, nil
	}
	f.next++
	id := sealer.JobID(fmt.Sprintf("%s-%d", kind, f.next))
	j := &fakeJob{
		info:    sealer.JobInfo{ID: id, Kind: kind, State: sealer.JobRunning, Submitted: time.Now()},
		result:  res,
		err:     f.fail,
		release: make(chan struct{}),
		done:    make(chan struct{}),
	}
	f.jobs[id] = j
	if key != "" {
		f.keys[key] = id
	}
	if !f.hold {
		close(j.release)
	}
	go f.run(j)
	return id, nil
}

func (f *fakeProver) run(j *fakeJob) {
	<-j.release
	f.mu.Lock()
	defer f.mu.Unlock()
	j.info.Finished = time.Now()
	switch {
	case j.info.State == sealer.JobCancelled:
		j.err = &sealer.Error{Code: sealer.CodeCancelled, Msg: "job cancelled"}
	case j.err != nil:
		j.info.State = sealer.JobFailed
	default:
		j.info.State = sealer.JobDone
		j.info.Timings = []sealer.StageTiming{{Queue: 3 * time.Millisecond, Synth: 20 * time.Millisecond, Prove: 30 * time.Millisecond, Total: 60 * time.Millisecond}}
		j.result.Info = j.info
	}
	close(j.done)
}

// releaseAll lets every held job finish.
func (f *fakeProver) releaseAll() {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, j := range f.jobs {
		select {
		case <-j.release:
		default:
			close(j.release)
		}
	}
}

func (f *fakeProver) SubmitSealCommit2(ctx context.Context, req *sealer.SealCommit2Request) (sealer.JobID, error) {
	f.mu.Lock()
	f.seals = append(f.seals, req)
	f.mu.Unlock()
	return f.add(sealer.JobSealCommit2, req.Key, &sealer.JobResult{Proof: fakeProof(1, req.C1)})
}

func (f *fakeProver) SubmitWinningPoSt(ctx context.Context, req *sealer.PoStRequest) (sealer.JobID, error) {
	return f.addPoSt(sealer.JobWinningPoSt, req)
}

func (f *fakeProver) SubmitWindowPoSt(ctx context.Context, req *sealer.PoStRequest) (sealer.JobID, error) {
	return f.addPoSt(sealer.JobWindowPoSt, req)
}

func (f *fakeProver) addPoSt(kind sealer.JobKind, req *sealer.PoStRequest) (sealer.JobID, error) {
	f.mu.Lock()
	f.posts = append(f.posts, req)
	f.mu.Unlock()
	inputs := append(append([][]byte(nil), req.VanillaProofs...), req.Randomness)
	res := &sealer.JobResult{PoSt: &sealer.PoStResponse{Proofs: []proof.PoStProof{{PoStProof: req.ProofType, ProofBytes: fakeProof(1, inputs...)}}}}
	return f.add(kind, req.Key, res)
}

func (f *fakeProver) job(id sealer.JobID) (*fakeJob, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	j, ok := f.jobs[id]
	if !ok {
		return nil, &sealer.Error{Code: sealer.CodeNotFound, Msg: fmt.Sprintf("job %q (unknown or expired)", id)}
	}
	return j, nil
}

func (f *fakeProver) Await(ctx context.Context, id sealer.JobID) (*sealer.JobResult, error) {
	j, err := f.job(id)
	if err != nil {
		return nil, err
	}
	select {
	case <-j.done:
	case <-ctx.Done():
		return nil, &sealer.Error{Code: sealer.CodeCancelled, Msg: "waiting", Err: ctx.Err()}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if j.err != nil {
		return nil, j.err
	}
	r := *j.result
	return &r, nil
}

func (f *fakeProver) Job(ctx context.Context, id sealer.JobID) (*sealer.JobInfo, error) {
	j, err := f.job(id)
	if err != nil {
		return nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	info := j.info
	return &info, nil
}

func (f *fakeProver) Cancel(ctx context.Context, id sealer.JobID) error {
	j, err := f.job(id)
	if err != nil {
		return err
	}
	f.mu.Lock()
	if !j.info.State.Final() {
		j.info.State = sealer.JobCancelled
	}
	f.mu.Unlock()
	f.releaseOne(j)
	return nil
}

func (f *fakeProver) releaseOne(j *fakeJob) {
	f.mu.Lock()
	defer f.mu.Unlock()
	select {
	case <-j.release:
	default:
		close(j.release)
	}
}

func (f *fakeProver) Status(ctx context.Context) (*sealer.Status, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	st := f.status
	st.Queues = map[sealer.JobKind]sealer.QueueStatus{}
	for _, j := range f.jobs {
		q := st.Queues[j.info.Kind]
		select {
		case <-j.done:
			q.Done++
		default:
			q.Running++
		}
		st.Queues[j.info.Kind] = q
	}
	return &st, nil
}

func (f *fakeProver) Preload(ctx context.Context, ref sealer.ProofTypeRef) (*sealer.PreloadResult, error) {
	f.mu.Lock()
	f.preloaded = append(f.preloaded, ref)
	f.mu.Unlock()
	if f.preload == nil {
		return nil, &sealer.Error{Code: sealer.CodeUnavailable, Msg: "no parameters"}
	}
	return f.preload, nil
}

func (f *fakeProver) Evict(ctx context.Context, ref sealer.ProofTypeRef) (bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.evicted = append(f.evicted, ref)
	return len(f.evicted) == 1, nil
}

func (f *fakeProver) lastSeal() *sealer.SealCommit2Request {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.seals[len(f.seals)-1]
}

func (f *fakeProver) lastPoSt() *sealer.PoStRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.posts[len(f.posts)-1]
}

func (f *fakeProver) SubmitReplicaUpdate2(ctx context.Context, req *sealer.ReplicaUpdateRequest) (sealer.JobID, error) {
	f.mu.Lock()
	f.updates = append(f.updates, req)
	f.mu.Unlock()
	return f.add(sealer.JobReplicaUpdate, req.Key, &sealer.JobResult{Proof: fakeProof(1, req.CommRNew)})
}
