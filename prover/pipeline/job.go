package pipeline

import (
	"context"
	"sync"
	"time"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/snarkpipe/snarkpipe/prover"
	"github.com/snarkpipe/snarkpipe/prover/backend"
	"github.com/snarkpipe/snarkpipe/prover/groth16"
)

// JobSpec is what a caller submits: the circuits (all of one circuit id, e.g. the ten
// partitions of a PoRep) proved in one job.
type JobSpec struct {
	// Key makes submission idempotent: a key whose job is in flight, or succeeded less
	// than IdempotencyTTL ago, returns that job; after a failure or cancellation the key
	// runs again. Empty: no idempotency.
	Key string
	// Kind labels metrics and the timeline (e.g. "porep", "winning").
	Kind     string
	Priority Priority
	Circuits []prover.Circuit
}

// Job is a submitted job. Its methods are safe for concurrent use.
type Job struct {
	ID       uint64
	Key      string
	Kind     string
	Priority Priority
	Circuit  prover.CircuitID

	seq       uint64
	submitted time.Time
	ctx       context.Context
	cancel    context.CancelFunc
	stopWatch func() bool
	onDone    func(*Job)

	mu        sync.Mutex
	remaining int
	res       Result
	err       error
	doneAt    time.Time
	finished  bool
	done      chan struct{}
}

// Result is a finished job: one verified proof and one timing record per circuit, in
// submission order.
type Result struct {
	Proofs  []groth16.Proof
	Timings []PartitionTiming
}

// Bytes concatenates the proofs (192 bytes each), as Filecoin expects multi-partition
// proofs.
func (r Result) Bytes() []byte {
	out := make([]byte, 0, len(r.Proofs)*groth16.ProofSize)
	for _, p := range r.Proofs {
		b := p.Bytes()
		out = append(out, b[:]...)
	}
	return out
}

// PartitionTiming is where one partition's time went. Timestamps mark stage starts and
// ends; durations are the waits and the work in between.
type PartitionTiming struct {
	Submitted, SynthStart, SynthEnd, ProveStart, ProveEnd, Done time.Time

	Prepare   time.Duration // recording key, recording lookup or recording (first use)
	Admission time.Duration // waiting for host memory
	HostLoad  time.Duration // making the circuit resident (recording + parameters), when this partition did it
	Pin       time.Duration // page-locking the partition's newly allocated slot (once per pooled slot)
	Witness   time.Duration // witness fill
	Eval      time.Duration // A·z, B·z, C·z on the host (host-evaluated path only)
	Pack      time.Duration // bit-packing the witness on the host (packed pre-compiled path only)
	Handoff   time.Duration // waiting for a device worker
	Device    time.Duration // waiting for device memory
	KeyLoad   time.Duration // making the proving key (and, pre-compiled path, the recording) resident, when this partition did it
	Prove     time.Duration // quotient and MSMs (pre-compiled path: upload, A·z and blinding too)
	Verify    time.Duration
	// Prover is the prover's stages; on the pre-compiled path its fields are the
	// matching stages of Resident (Total includes Assemble).
	Prover groth16.Timings
	// Resident is the device's stages on the pre-compiled path (backend.ShapeEvaluator:
	// upload, A·z, quotient, each MSM, host-side blinding); zero on the host-evaluated path.
	Resident groth16.DeviceTimings
	Worker   string // device worker that proved it
	Batch    int    // partitions proved together in one device call (cross-job batching)
}

// Await waits for the job (or ctx) and returns its proofs and timings. A failed job
// returns its first error; a cancelled one the context's error.
func (j *Job) Await(ctx context.Context) (Result, error) {
	select {
	case <-j.done:
	case <-ctx.Done():
		return Result{}, ctx.Err()
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.res, j.err
}

// Progress returns the timings of the partitions proved so far (in submission order,
// those not yet proved left out), for live status while the job runs.
func (j *Job) Progress() []PartitionTiming {
	j.mu.Lock()
	defer j.mu.Unlock()
	var out []PartitionTiming
	for _, t := range j.res.Timings {
		if !t.Done.IsZero() {
			out = append(out, t)
		}
	}
	return out
}

// Done is closed when the job has finished.
func (j *Job) Done() <-chan struct{} { return j.done }

// Cancel stops the job: queued partitions are dropped and every reservation it holds is
// released; device work already running completes and is discarded.
func (j *Job) Cancel() { j.cancel() }

// Err is the job's error once it has finished (nil while running or after success).
func (j *Job) Err() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.err
}

// reusable reports whether the job is in flight or succeeded less than ttl ago.
func (j *Job) reusable(now time.Time, ttl time.Duration) bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	if !j.finished {
		return true // in flight
	}
	return j.err == nil && now.Sub(j.doneAt) < ttl
}

// partitionDone stores one verified proof.
func (j *Job) partitionDone(i int, proof groth16.Proof, t PartitionTiming) {
	j.mu.Lock()
	if j.err != nil || j.remaining == 0 {
		j.mu.Unlock()
		return
	}
	j.res.Proofs[i] = proof
	j.res.Timings[i] = t
	j.remaining--
	last := j.remaining == 0
	j.mu.Unlock()
	if last {
		j.finish(nil)
	}
}

// finish ends the job once; err nil is success. Cancelling the context afterwards
// releases whatever the job's partitions still hold.
func (j *Job) finish(err error) {
	j.mu.Lock()
	if j.finished {
		j.mu.Unlock()
		return
	}
	j.finished = true
	j.err = err
	if err != nil {
		j.res = Result{}
	}
	j.doneAt = time.Now()
	j.mu.Unlock()
	j.stopWatch()
	j.cancel()
	j.onDone(j) // bookkeeping first: once Await returns, the pipeline no longer tracks the job
	close(j.done)
}

// partition is one circuit of a job on its way through the stages.
type partition struct {
	job     *Job
	index   int
	circuit prover.Circuit
	seq     uint64 // job.seq<<20 | index: FIFO order among equal priorities

	heapIndex int    // position in the queue holding it, -1 when in none
	worker    string // the worker handling it now (timeline track)

	hint   Hint
	host   *grant
	entry  *entry // the host entry state came from (kept after host is released)
	state  *circuitState
	slot   *slot
	packed *backend.PackedAux // the witness as handed over on the packed path (in the slot)
	fill   *fillProgress      // a streamed partition's fill, handed over before it ended
	proof  groth16.Proof
	public []fr.Element
	vk     *groth16.VerifyingKey
	t      PartitionTiming
}

func (p *partition) request(a *arena, entryBytes, ws int64, shape slotShape) request {
	return request{id: p.job.Circuit, entryBytes: entryBytes, ws: ws, slot: shape, prio: p.job.Priority, seq: p.seq}
}
