package pipeline

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/snarkpipe/snarkpipe/prover"
	"github.com/snarkpipe/snarkpipe/prover/groth16"
	"github.com/snarkpipe/snarkpipe/prover/r1cs"
	"github.com/snarkpipe/snarkpipe/prover/srs"
)

// circuitState is a circuit resident on the host: its recording and its parameters.
type circuitState struct {
	id     prover.CircuitID
	key    srs.RecordingKey
	shape  *r1cs.Shape
	params *groth16.Params // nil when keys are made on the devices (Deps.Keys)
	unpin  []func() error  // page-locks on params (Config.PinKeys), released before params
	// saved is closed when the background save of a recording made by this process is
	// done; nil when the recording came from the store or is kept in memory only.
	saved <-chan struct{}
}

// close releases the host parameters (the recording is garbage-collected). It runs on
// the freer after an eviction: it first waits for a pending save of the recording, so
// that the recording's bytes stay reserved while the save still reads them.
func (st *circuitState) close() {
	if st.saved != nil {
		<-st.saved
	}
	for _, u := range st.unpin {
		_ = u() // a failed unpin leaves a registration behind, not a fault: the memory goes next
	}
	st.unpin = nil
	if st.params != nil {
		st.params.Close()
	}
}

// circuits knows, per circuit id, the recording key of this process's circuit code and the
// recording itself; it records circuits that have no usable recording.
type circuits struct {
	store   *srs.Recordings // nil: recordings are kept in memory only
	hints   *hintStore
	codeID  string // Deps.CodeID: hints probed by this code are trusted
	metrics *metrics
	log     *slog.Logger // nil: failures that fail nothing are not reported
	// onRecord is Deps.OnRecord (nil: recordings are not reported).
	onRecord func(prover.CircuitID) func(error)

	mu      sync.Mutex
	keys    map[prover.CircuitID]srs.RecordingKey // probed in this process
	shapes  map[prover.CircuitID]heldShape        // recorded or read, not yet resident
	probing map[prover.CircuitID]chan struct{}
}

// heldShape is a recording waiting to be made resident; unsaved when this process
// recorded it and the store (if any) does not have it yet.
type heldShape struct {
	shape   *r1cs.Shape
	unsaved bool
}

func newCircuits(store *srs.Recordings, hints *hintStore, codeID string) *circuits {
	return &circuits{
		store: store, hints: hints, codeID: codeID,
		keys:    make(map[prover.CircuitID]srs.RecordingKey),
		shapes:  make(map[prover.CircuitID]heldShape),
		probing: make(map[prover.CircuitID]chan struct{}),
	}
}

// prepare returns the hint of c's circuit id, valid for this process's circuit code. The
// first call per id learns the recording key: by synthesizing c into the key hasher
// (no memory beyond counters), then finding the recording in the store or recording it
// with buffers sized by that synthesis; or, when the id has a hint but no recording on
// disk, by recording c in the same synthesis (recordOnce). Concurrent callers for one id
// wait for the first.
func (cs *circuits) prepare(ctx context.Context, c prover.Circuit) (Hint, error) {
	id := c.ID()
	for {
		cs.mu.Lock()
		if key, ok := cs.keys[id]; ok {
			if h, ok := cs.hints.get(id); ok && h.Key == key.String() {
				cs.mu.Unlock()
				return h, nil
			}
		}
		wait, busy := cs.probing[id]
		if !busy {
			wait = make(chan struct{})
			cs.probing[id] = wait
			cs.mu.Unlock()
			h, err := cs.probe(c)
			cs.mu.Lock()
			delete(cs.probing, id)
			close(wait)
			cs.mu.Unlock()
			return h, err
		}
		cs.mu.Unlock()
		select {
		case <-wait:
		case <-ctx.Done():
			return Hint{}, ctx.Err()
		}
	}
}

func (cs *circuits) probe(c prover.Circuit) (Hint, error) {
	id := c.ID()
	if h, ok := cs.hints.get(id); ok && !cs.storeMayHold(id) {
		return cs.recordOnce(c, h.capacity())
	}
	if h, key, ok := cs.trustedHint(id); ok {
		// Probed by this very code before: its key stands. A recording that still does
		// not match is caught as for any key (ErrCircuitChanged, failed verification).
		cs.setKey(id, key, heldShape{})
		return h, nil
	}
	if pc, ok := c.(prover.PartedCircuit); ok && partWorkers() > 0 && !cs.storeMayHold(id) {
		// Nothing on disk can match, so the key is not needed before recording; one part
		// recorded alone sizes the recorder (recordParts computes the key beside it).
		if capacity, err := partsCapacity(id, pc); err == nil {
			return cs.recordOnce(c, capacity)
		}
	}
	k := newKeyCS()
	if err := contain(id, func() error { return c.Synthesize(k) }); err != nil {
		return Hint{}, fmt.Errorf("pipeline: synthesizing %s: %w", id, err)
	}
	key := k.key()
	if h, ok := cs.hints.get(id); ok && h.Key == key.String() {
		cs.setKey(id, key, heldShape{})
		return h, nil
	}
	held, err := cs.lookupOrRecord(c, key, k.capacity())
	if err != nil {
		return Hint{}, err
	}
	return cs.setKey(id, key, held)
}

// trustedHint returns id's hint and its recording key when a process of this CodeID
// probed it.
func (cs *circuits) trustedHint(id prover.CircuitID) (Hint, srs.RecordingKey, bool) {
	h, ok := cs.hints.get(id)
	if !ok || cs.codeID == "" || h.ProbedBy != cs.codeID {
		return Hint{}, srs.RecordingKey{}, false
	}
	key, err := srs.ParseRecordingKey(h.Key)
	return h, key, err == nil
}

// setKey remembers key for id, and the recording (with its hint) when one was just
// obtained (held.shape non-nil).
func (cs *circuits) setKey(id prover.CircuitID, key srs.RecordingKey, held heldShape) (Hint, error) {
	cs.mu.Lock()
	cs.keys[id] = key
	if held.shape != nil {
		cs.shapes[id] = held
	}
	cs.mu.Unlock()
	if held.shape == nil {
		h, _ := cs.hints.get(id)
		if cs.codeID != "" && h.Key == key.String() && h.ProbedBy != cs.codeID {
			h.ProbedBy = cs.codeID // this code's probe agrees: the next start may trust it
			cs.putHint(id, h)
		}
		return h, nil
	}
	h := hintOf(key, held.shape)
	h.ProbedBy = cs.codeID
	cs.putHint(id, h)
	return h, nil
}

// putHint persists h, logging a failure (the hint stays in memory).
func (cs *circuits) putHint(id prover.CircuitID, h Hint) {
	if err := cs.hints.put(id, h); err != nil && cs.log != nil {
		// The hint is kept in memory; a disk that refuses it only costs the next process
		// its admission before synthesis, as a refused recording costs it a recording.
		cs.log.Warn("pipeline: persisting a capacity hint failed", "circuit", id, "err", err)
	}
}

// forget drops what is known about id (its circuit no longer matches the recording),
// including the trust in its hint's key: the next prepare probes.
func (cs *circuits) forget(id prover.CircuitID) {
	cs.mu.Lock()
	delete(cs.keys, id)
	delete(cs.shapes, id)
	cs.mu.Unlock()
	if h, ok := cs.hints.get(id); ok && h.ProbedBy != "" {
		h.ProbedBy = ""
		cs.putHint(id, h)
	}
}

// lookupOrRecord reads the recording of (id, key), or records c into buffers of the
// given capacity (saved once it is resident: recordingSaver).
func (cs *circuits) lookupOrRecord(c prover.Circuit, key srs.RecordingKey, capacity r1cs.Capacity) (heldShape, error) {
	id := c.ID()
	if cs.store != nil {
		s, err := cs.store.Load(id, key)
		switch {
		case err == nil:
			cs.count("hit")
			return heldShape{shape: s}, nil
		case errors.Is(err, r1cs.ErrShapeFileCorrupt) || errors.Is(err, r1cs.ErrShapeFileVersion):
			cs.count("corrupt")
		case !errors.Is(err, srs.ErrNoRecording):
			// The store is a cache: a file that cannot be read costs a recording, not
			// the job.
			cs.count("unreadable")
			if cs.log != nil {
				cs.log.Warn("pipeline: reading a recording failed; recording the circuit", "circuit", id, "err", err)
			}
		}
	}
	got, s, err := cs.record(c, capacity)
	if err != nil {
		return heldShape{}, err
	}
	if got != key {
		return heldShape{}, fmt.Errorf("%w: %s synthesizes differently from one call to the next", ErrCircuitChanged, id)
	}
	cs.count("recorded")
	return heldShape{shape: s, unsaved: cs.store != nil}, nil
}

// record synthesizes c once into the recorder and the key hasher together (recordingCS),
// the recorder's buffers sized by capacity; a PartedCircuit's parts are recorded
// concurrently instead, beside the key's synthesis (recordParts). It returns the key and
// the finished recording, its spare capacity trimmed (trimRecording).
func (cs *circuits) record(c prover.Circuit, capacity r1cs.Capacity) (key srs.RecordingKey, s *r1cs.Shape, err error) {
	if cs.onRecord != nil {
		// Recording a large circuit takes minutes on its first use: the caller shows it.
		end := cs.onRecord(c.ID())
		defer func() { end(err) }()
	}
	if pc, ok := c.(prover.PartedCircuit); ok && partWorkers() > 0 {
		key, s, err = recordParts(c, pc, capacity, partWorkers())
		if err != nil && cs.log != nil {
			// Parts that do not fit their layout, or any other failure: one synthesis
			// decides (and reports the circuit's own error, if it has one).
			cs.log.Warn("pipeline: recording in parts failed; recording in one synthesis", "circuit", c.ID(), "err", err)
		}
	}
	if s == nil {
		key, s, err = recordInto(c, r1cs.NewRecorder(capacity))
	}
	if err != nil {
		return key, nil, err
	}
	return key, trimRecording(s), nil
}

// recordInto synthesizes c into rec and the key hasher together and finishes rec.
func recordInto(c prover.Circuit, rec *r1cs.Recorder) (srs.RecordingKey, *r1cs.Shape, error) {
	id := c.ID()
	k := newKeyCS()
	if err := contain(id, func() error { return c.Synthesize(recordingCS{key: k, rec: rec}) }); err != nil {
		return srs.RecordingKey{}, nil, fmt.Errorf("pipeline: recording %s: %w", id, err)
	}
	return k.key(), rec.Finish(), nil
}

func (cs *circuits) count(outcome string) {
	if cs.metrics != nil {
		cs.metrics.recordings.WithLabelValues(outcome).Inc()
	}
}

// shapeFor returns the recording of c for the key probed in this process, taking the one
// prepare left behind, else reading or re-recording it.
func (cs *circuits) shapeFor(c prover.Circuit) (srs.RecordingKey, heldShape, error) {
	id := c.ID()
	cs.mu.Lock()
	key, ok := cs.keys[id]
	held := cs.shapes[id]
	delete(cs.shapes, id)
	cs.mu.Unlock()
	if !ok {
		return key, heldShape{}, fmt.Errorf("pipeline: %s has not been prepared", id)
	}
	if held.shape != nil {
		return key, held, nil
	}
	var capacity r1cs.Capacity
	if h, ok := cs.hints.get(id); ok {
		capacity = h.capacity()
	}
	held, err := cs.lookupOrRecord(c, key, capacity)
	return key, held, err
}

// loadHost makes a circuit resident on the host: recording, then parameters. A
// recording this process made is then saved in the background (recordingSaver): the
// caller holds the circuit's reservation, which covers the recording the save reads.
func (p *Pipeline) loadHost(ctx context.Context, c prover.Circuit, hint Hint) (*circuitState, error) {
	key, held, err := p.circuits.shapeFor(c)
	if err != nil {
		return nil, err
	}
	shape := held.shape
	if !hintOf(key, shape).sameSizes(hint) {
		// The reservation was sized from a hint of other sizes; refuse rather than
		// exceed the budget. The next attempt uses the corrected hint.
		p.circuits.setKey(c.ID(), key, held)
		return nil, fmt.Errorf("%w: %s: recording sizes changed since admission", ErrCircuitChanged, c.ID())
	}
	st := &circuitState{id: c.ID(), key: key, shape: shape}
	if p.deps.Keys == nil {
		if st.params, err = p.deps.Params.Params(ctx, c.ID(), shape); err != nil {
			return nil, fmt.Errorf("pipeline: parameters of %s: %w", c.ID(), err)
		}
		if p.cfg.PinKeys {
			st.unpin = p.pinKeys(c.ID(), st.params)
		}
	} // else each device makes its key from the shape
	if held.unsaved {
		st.saved = p.saver.submit(c.ID(), key, shape)
	}
	return st, nil
}

// awaitEntry waits until e has loaded.
func awaitEntry(ctx context.Context, e *entry) error {
	select {
	case <-e.ready:
		return e.err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// loaderGaveUp reports a load that failed only because the loading partition's own job
// ended while the waiter's did not: the waiter should try again (and load it itself).
func loaderGaveUp(ctx context.Context, err error) bool {
	return ctx.Err() == nil && (errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded))
}

// acquireHost admits a partition on the host and makes its circuit resident there. The
// load runs to completion even if the partition's job is cancelled meanwhile: the circuit
// stays resident for the next job, and partitions waiting for it are not failed.
func (p *Pipeline) acquireHost(ctx context.Context, part *partition) error {
	h := part.hint
	shape := p.hostSlot(h)
	for {
		t0 := time.Now()
		g, err := p.host.acquire(ctx, part.request(p.host, p.hostEntryBytes(h), shape.bytes(), shape))
		part.t.Admission += time.Since(t0)
		if err != nil {
			return err
		}
		part.host = g
		if g.loader {
			t := time.Now()
			st, err := p.loadHost(context.WithoutCancel(ctx), part.circuit, h)
			took := time.Since(t)
			part.t.HostLoad = took
			p.trace.span("load circuit", part.worker, t, t.Add(took), part)
			if err != nil {
				p.host.loaded(g.entry, nil, nil, took, err)
				return err
			}
			p.host.loaded(g.entry, st, st.close, took, nil)
			p.metrics.srsLoads.WithLabelValues(p.host.name).Inc()
			p.metrics.srsLoad.WithLabelValues(p.host.name).Observe(took.Seconds())
		}
		err = awaitEntry(ctx, g.entry)
		if err == nil {
			part.state = g.entry.value.(*circuitState)
			part.entry = g.entry
			return nil
		}
		p.host.release(g, true)
		part.host = nil
		if !loaderGaveUp(ctx, err) {
			return err
		}
	}
}

// acquireDevice admits a partition on device d and makes its circuit resident there
// (proving key, and the recorded shape on a device with the pre-compiled path). Like the
// host load, the load runs to completion even if the partition's job is cancelled.
func (p *Pipeline) acquireDevice(ctx context.Context, d *device, part *partition, ws int64) (*grant, *deviceKey, error) {
	st := part.state
	for {
		g, err := d.arena.acquire(ctx, part.request(d.arena, p.deviceEntryBytes(d, part.hint), ws, slotShape{}))
		if err != nil {
			return nil, nil, err
		}
		if g.loader {
			t := time.Now()
			k, err := p.loadDeviceKey(context.WithoutCancel(ctx), d, st, part.hint)
			took := time.Since(t)
			part.t.KeyLoad = took
			p.trace.span("load proving key", part.worker, t, t.Add(took), part)
			if err != nil {
				d.arena.loaded(g.entry, nil, nil, took, err)
				d.arena.release(g, true)
				return nil, nil, err
			}
			d.arena.loaded(g.entry, k, func() { k.close() }, took, nil)
			p.metrics.srsLoads.WithLabelValues(d.arena.name).Inc()
			p.metrics.srsLoad.WithLabelValues(d.arena.name).Observe(took.Seconds())
		}
		err = awaitEntry(ctx, g.entry)
		if err == nil {
			return g, g.entry.value.(*deviceKey), nil
		}
		d.arena.release(g, true)
		if !loaderGaveUp(ctx, err) {
			return nil, nil, err
		}
	}
}
