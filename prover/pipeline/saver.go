package pipeline

import (
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/snarkpipe/snarkpipe/prover"
	"github.com/snarkpipe/snarkpipe/prover/r1cs"
	"github.com/snarkpipe/snarkpipe/prover/srs"
)

// recordingSaver writes new recordings to the store in the background, one at a time in
// submission order, so that the first partition of a circuit does not wait for the write
// (0.3 s for the 176 MiB 2 KiB PoRep file; ~10 GB, tens of seconds, at 32 GiB PoRep).
//
// A save is submitted once the recording is resident on the host: its memory is then
// held by the resident circuit's reservation, and the save only reads it, so the save
// reserves nothing. A circuit evicted before its save is done keeps its bytes reserved
// until the save finishes (circuitState.close, run by the freer, waits for it): the save
// always completes from the shape it holds, and the budget never counts memory as free
// while the save still holds it. A failed save fails nothing: it is logged and counted
// (snarkpipe_pipeline_recording_saves_total{outcome="failed"}), the recording stays
// resident, and the next process finds no file and records the circuit again.
type recordingSaver struct {
	write func(id prover.CircuitID, key srs.RecordingKey, s *r1cs.Shape) error
	log   *slog.Logger
	saves *prometheus.CounterVec // outcome: ok, failed

	mu      sync.Mutex
	queue   []*pendingSave
	wake    chan struct{}
	done    chan struct{}
	started bool
	closing bool
}

// pendingSave is one recording waiting to be written; done is closed once it is.
type pendingSave struct {
	id    prover.CircuitID
	key   srs.RecordingKey
	shape *r1cs.Shape
	done  chan struct{}
}

func newRecordingSaver(write func(prover.CircuitID, srs.RecordingKey, *r1cs.Shape) error, log *slog.Logger, saves *prometheus.CounterVec) *recordingSaver {
	return &recordingSaver{write: write, log: log, saves: saves, wake: make(chan struct{}, 1), done: make(chan struct{})}
}

// Start starts the background writer.
func (s *recordingSaver) Start() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.started || s.closing {
		return
	}
	s.started = true
	go s.run()
}

// submit queues the save of (id, key) and returns a channel closed when it is done
// (written or failed). After Close the save runs at once, on the caller.
func (s *recordingSaver) submit(id prover.CircuitID, key srs.RecordingKey, shape *r1cs.Shape) <-chan struct{} {
	job := &pendingSave{id: id, key: key, shape: shape, done: make(chan struct{})}
	s.mu.Lock()
	if s.closing {
		s.mu.Unlock()
		s.save(job)
		return job.done
	}
	s.queue = append(s.queue, job)
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
	return job.done
}

func (s *recordingSaver) run() {
	defer close(s.done)
	for {
		s.mu.Lock()
		var job *pendingSave
		if len(s.queue) > 0 {
			job = s.queue[0]
			s.queue[0] = nil // the backing array must not keep an evicted recording alive
			s.queue = s.queue[1:]
		}
		closing := s.closing
		s.mu.Unlock()
		switch {
		case job != nil:
			s.save(job)
		case closing:
			return
		default:
			<-s.wake
		}
	}
}

// save writes one recording, counts and logs the outcome, and marks it done.
func (s *recordingSaver) save(job *pendingSave) {
	defer close(job.done)
	t := time.Now()
	err := s.writeContained(job)
	took := time.Since(t)
	if err != nil {
		s.saves.WithLabelValues("failed").Inc()
		s.log.Warn("pipeline: saving a recording failed; it stays in memory and the next process records it again",
			"circuit", job.id, "key", job.key.String(), "seconds", took.Seconds(), "err", err)
		return
	}
	s.saves.WithLabelValues("ok").Inc()
	s.log.Debug("pipeline: recording saved", "circuit", job.id, "key", job.key.String(), "seconds", took.Seconds())
}

// writeContained runs the writer, turning a panic into an error: a save is never worth
// the daemon.
func (s *recordingSaver) writeContained(job *pendingSave) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("pipeline: saving the recording of %s panicked: %v", job.id, r)
		}
	}()
	return s.write(job.id, job.key, job.shape)
}

// Close writes the queued recordings, waits for them, and stops the writer; later
// submissions run on their callers. Close may be called more than once.
func (s *recordingSaver) Close() {
	s.mu.Lock()
	first := !s.closing
	s.closing = true
	if !s.started { // nothing ran yet: the writer drains the queue and stops
		s.started = true
		go s.run()
	}
	s.mu.Unlock()
	if first {
		select {
		case s.wake <- struct{}{}:
		default:
		}
	}
	<-s.done
}
