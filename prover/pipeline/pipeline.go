package pipeline

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/snarkpipe/snarkpipe/prover"
	"github.com/snarkpipe/snarkpipe/prover/backend"
	"github.com/snarkpipe/snarkpipe/prover/groth16"
	"github.com/snarkpipe/snarkpipe/prover/r1cs"
	"github.com/snarkpipe/snarkpipe/prover/srs"
)

// ParamsSource locates and loads the parameters of a circuit id (official files or dev
// parameters: the caller decides). The returned parameters must match shape; the pipeline
// owns them and closes them on eviction. srs.Files and srs.Dev implement it.
type ParamsSource interface {
	Params(ctx context.Context, id prover.CircuitID, shape *r1cs.Shape) (*groth16.Params, error)
}

// KeySource makes a circuit's proving key directly on one device, without host
// parameters (benchmark keys: BenchKeys). The key's Params hold at least the verifying
// key, which finalization verifies that key's proofs against. Every device must get keys
// with one verifying key per circuit id (a deterministic source per id), so that proofs
// made on any device are checked against the same key. The pipeline owns the returned key
// and closes it, its Params included, on eviction.
type KeySource interface {
	ProvingKey(ctx context.Context, id prover.CircuitID, shape *r1cs.Shape, be backend.Backend) (*groth16.ProvingKey, error)
}

// Deps are the pipeline's collaborators.
type Deps struct {
	// Backends are the devices, one per backend; each gets WorkersPerDevice workers.
	Backends []backend.Backend
	Params   ParamsSource
	// Keys, when set, replaces Params: each circuit's proving key is made directly on each device
	// (benchmark keys, e.g. groth16.BenchSetup with known toxic waste). The key's Params hold the VK.
	Keys KeySource
	// Registerer receives the Prometheus metrics (nil: a private registry).
	Registerer prometheus.Registerer
	// Logger receives what fails without failing a job (a recording or capacity hint that
	// could not be written). nil: slog.Default().
	Logger *slog.Logger
	// CodeID names this build's circuit code (CodeIDOfExecutable: a hash of the running
	// binary). A capacity hint persisted by a process of the same CodeID carries the
	// recording key that process probed, and is trusted instead of probing again: the
	// probe is a whole synthesis (about a minute for a 32 GiB PoRep partition, three for a
	// Window PoSt one), paid at every start before the first proof. Empty: always probe.
	CodeID string
	// OnRecord, when set, is called as a circuit's recording starts (the first use of a
	// circuit without a stored recording: minutes at 32 GiB); the function it returns is
	// called when it ends, with its error. For progress reports.
	OnRecord func(id prover.CircuitID) (end func(error))
}

// ErrClosed is returned by Submit and Preload after Close.
var ErrClosed = errors.New("pipeline: closed")

// Pipeline is the proving engine: it admits jobs, keeps circuits resident and moves
// partitions through synthesis, the bounded hand-off, the device workers and
// finalization. See the package documentation for the policies.
type Pipeline struct {
	cfg    Config
	deps   Deps
	mode   synthMode
	pinner backend.HostPinner // page-locks host slots for uploads; nil: none
	// fixedRandomness, set by tests only, makes every proof use this (r, s), so that the
	// proving paths can be compared byte for byte. nil: fresh randomness per proof.
	fixedRandomness *groth16.Randomness
	host            *arena
	devices         []*device
	freer           *freer
	saver           *recordingSaver
	circuits        *circuits
	metrics         *metrics
	trace           *timeline

	runq, handoff *pqueue
	finalq        chan *partition

	synth      *synthStage
	provers    []*deviceStage
	finalizer  *finalizeStage
	unregister func()

	mu      sync.Mutex
	closed  bool
	started bool
	nextJob uint64
	keys    map[string]*Job
	active  map[*Job]struct{}
}

// device is one backend with its memory budget.
type device struct {
	index   int
	backend backend.Backend
	caps    deviceCaps
	arena   *arena
}

// New builds a pipeline; Start starts its stages.
func New(cfg Config, deps Deps) (*Pipeline, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.Resolved()
	if len(deps.Backends) == 0 || (deps.Params == nil && deps.Keys == nil) {
		return nil, errors.New("pipeline: at least one backend and a parameter or key source are required")
	}
	hostCap, err := cfg.hostBudget()
	if err != nil {
		return nil, err
	}
	logger := deps.Logger
	if logger == nil {
		logger = slog.Default()
	}
	p := &Pipeline{
		cfg: cfg, deps: deps,
		freer:   newFreer(),
		runq:    newPQueue(0),
		handoff: newPQueue(cfg.HandoffDepth),
		finalq:  make(chan *partition, cfg.HandoffDepth+cfg.WorkersPerDevice*len(deps.Backends)),
		keys:    make(map[string]*Job),
		active:  make(map[*Job]struct{}),
	}
	if cfg.TraceEvents > 0 {
		p.trace = newTimeline(cfg.TraceEvents)
	}
	p.host = newArena("host", hostCap, p.freer, cfg.Pinned)
	p.host.advice = hostAdvice
	for i, be := range deps.Backends {
		devCap, err := cfg.deviceBudget(be, hostCap, logger)
		if err != nil {
			return nil, err
		}
		d := &device{index: i, backend: be, caps: capsOf(be), arena: newArena(fmt.Sprintf("device%d", i), devCap, p.freer, cfg.Pinned)}
		if _, ok := be.(backend.MemoryReporter); ok {
			d.arena.advice = deviceAdvice
		}
		p.devices = append(p.devices, d)
		if pn, ok := be.(backend.HostPinner); ok && p.pinner == nil && d.caps.resident {
			p.pinner = pn
		}
	}
	p.mode = modeOf(deps.Backends)
	p.host.onDetach = func(id prover.CircuitID) {
		for _, d := range p.devices {
			d.arena.detachCircuit(id)
		}
	}
	var store *srs.Recordings
	if cfg.RecordingsDir != "" {
		store = &srs.Recordings{Dir: cfg.RecordingsDir, MaxBytes: cfg.RecordingsMaxBytes}
	}
	p.circuits = newCircuits(store, openHints(cfg.RecordingsDir), deps.CodeID)
	if p.metrics, err = newMetrics(deps.Registerer, p); err != nil {
		p.freer.close()
		return nil, err
	}
	p.circuits.metrics = p.metrics
	// Started here, as the freer is: Preload and Evict work before Start, and an
	// eviction's release waits for its circuit's pending save.
	p.circuits.log = logger
	p.circuits.onRecord = deps.OnRecord
	p.saver = newRecordingSaver(p.circuits.saveIfAbsent, logger, p.metrics.recordingSaves)
	p.saver.Start()
	p.synth = &synthStage{p: p}
	for _, d := range p.devices {
		p.provers = append(p.provers, &deviceStage{p: p, dev: d})
	}
	p.finalizer = &finalizeStage{p: p}
	return p, nil
}

func (p *Pipeline) arenas() []*arena {
	out := []*arena{p.host}
	for _, d := range p.devices {
		out = append(out, d.arena)
	}
	return out
}

// Start starts the stages.
func (p *Pipeline) Start() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.started || p.closed {
		return
	}
	p.started = true
	p.finalizer.Start(p.cfg.FinalizeWorkers)
	for _, s := range p.provers {
		s.Start(p.cfg.WorkersPerDevice)
	}
	p.synth.Start(p.cfg.SynthesisWorkers, p.cfg.CriticalWorkers)
}

// Close cancels every job, stops the stages in order, waits for the recordings being
// saved, and releases all memory.
func (p *Pipeline) Close() error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil
	}
	p.closed = true
	jobs := make([]*Job, 0, len(p.active))
	for j := range p.active {
		jobs = append(jobs, j)
	}
	p.mu.Unlock()
	for _, j := range jobs {
		j.finish(ErrClosed)
	}
	p.runq.close()
	p.synth.Close()
	p.handoff.close()
	for _, s := range p.provers {
		s.Close()
	}
	close(p.finalq)
	p.finalizer.Close()
	for _, part := range p.runq.drain() {
		_ = part
	}
	for _, part := range p.handoff.drain() {
		p.releaseHost(part, true)
	}
	p.saver.Close() // pending saves complete before the recordings are released
	for _, a := range p.arenas() {
		a.closeAll()
	}
	p.freer.close()
	p.unregister()
	return nil
}

// Submit queues a job and returns at once; Await gives its result. ctx bounds the job's
// life: cancelling it cancels the job. A job that can never fit the budgets is refused
// here when the circuit's sizes are known (from an earlier run), and fails with
// ErrTooLarge when it is first prepared otherwise.
func (p *Pipeline) Submit(ctx context.Context, spec JobSpec) (*Job, error) {
	if len(spec.Circuits) == 0 {
		return nil, errors.New("pipeline: job has no circuits")
	}
	if !spec.Priority.Valid() {
		return nil, fmt.Errorf("pipeline: invalid priority %d", spec.Priority)
	}
	id := spec.Circuits[0].ID()
	for i, c := range spec.Circuits {
		if c.ID() != id {
			return nil, fmt.Errorf("pipeline: circuit %d is %s, job is for %s", i, c.ID(), id)
		}
	}
	if h, ok := p.fitHint(spec.Circuits[0]); ok {
		if err := p.checkFits(id, h); err != nil {
			return nil, err
		}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil, ErrClosed
	}
	now := time.Now()
	p.expireKeys(now)
	if spec.Key != "" {
		if j, ok := p.keys[spec.Key]; ok && j.reusable(now, p.cfg.IdempotencyTTL) {
			return j, nil
		}
	}
	p.nextJob++
	jctx, cancel := context.WithCancel(ctx)
	j := &Job{
		ID: p.nextJob, Key: spec.Key, Kind: spec.Kind, Priority: spec.Priority, Circuit: id,
		seq: p.nextJob, submitted: now, ctx: jctx, cancel: cancel,
		remaining: len(spec.Circuits), done: make(chan struct{}),
		res: Result{Proofs: make([]groth16.Proof, len(spec.Circuits)), Timings: make([]PartitionTiming, len(spec.Circuits))},
	}
	j.onDone = p.jobDone
	j.stopWatch = context.AfterFunc(jctx, func() { j.finish(context.Cause(jctx)) })
	p.active[j] = struct{}{}
	if spec.Key != "" {
		p.keys[spec.Key] = j
	}
	for i, c := range spec.Circuits {
		part := &partition{job: j, index: i, circuit: c, seq: j.seq<<20 | uint64(i)}
		part.t.Submitted = now
		if err := p.runq.push(context.Background(), part); err != nil {
			cancel()
			return nil, ErrClosed
		}
	}
	return j, nil
}

// checkFits refuses what can never fit, from a circuit's hint.
// fitHint is what the pipeline knows of c's sizes before preparing it: its capacity hint
// (from an earlier synthesis, persisted), else the counts c declares (prover.SizedCircuit)
// with its recording's size unknown and counted as nothing, so that the bytes checkFits
// asks for are a lower bound.
func (p *Pipeline) fitHint(c prover.Circuit) (Hint, bool) {
	if h, ok := p.circuits.hints.get(c.ID()); ok {
		return h, true
	}
	if sc, ok := c.(prover.SizedCircuit); ok {
		if counts, ok := sc.KnownCounts(); ok {
			return Hint{Counts: counts, ParamsBytes: srs.ParamsBytes(counts)}, true
		}
	}
	return Hint{}, false
}

func (p *Pipeline) checkFits(id prover.CircuitID, h Hint) error {
	slot := p.hostSlot(h)
	if err := p.host.fits(request{id: id, entryBytes: p.hostEntryBytes(h), ws: slot.bytes()}); err != nil {
		return err
	}
	for _, d := range p.devices {
		if err := d.arena.fits(request{id: id, entryBytes: p.deviceEntryBytes(d, h), ws: p.deviceWorkingSet(d, h)}); err != nil {
			return err
		}
	}
	return nil
}

func (p *Pipeline) jobDone(j *Job) {
	outcome := "ok"
	if err := j.Err(); errors.Is(err, context.Canceled) {
		outcome = "cancelled"
	} else if err != nil {
		outcome = "failed"
	}
	p.metrics.jobs.WithLabelValues(j.Kind, outcome).Inc()
	p.mu.Lock()
	delete(p.active, j)
	if j.Key != "" && outcome != "ok" && p.keys[j.Key] == j {
		delete(p.keys, j.Key)
	}
	p.mu.Unlock()
}

// expireKeys forgets idempotency keys whose success is older than the TTL.
func (p *Pipeline) expireKeys(now time.Time) {
	for k, j := range p.keys {
		if !j.reusable(now, p.cfg.IdempotencyTTL) {
			delete(p.keys, k)
		}
	}
}

// LoadInfo reports a Preload.
type LoadInfo struct {
	AlreadyResident bool
	HostLoad        time.Duration
	KeyLoads        []time.Duration // per device
	Tiers           []TierInfo      // per device: where the key's vectors are (tiers.go)
	Slots           int             // pooled slots allocated and page-locked (Config.PreloadSlots)
	SlotTime        time.Duration
}

// Preload makes c's circuit resident on the host and every device without proving.
func (p *Pipeline) Preload(ctx context.Context, c prover.Circuit) (LoadInfo, error) {
	var info LoadInfo
	p.mu.Lock()
	closed := p.closed
	p.nextJob++
	seq := p.nextJob
	p.mu.Unlock()
	if closed {
		return info, ErrClosed
	}
	if h, ok := p.fitHint(c); ok {
		if err := p.checkFits(c.ID(), h); err != nil {
			return info, err
		}
	}
	j := &Job{ID: seq, Kind: "preload", Priority: Critical, Circuit: c.ID(), seq: seq}
	part := &partition{job: j, circuit: c, seq: seq << 20, worker: "preload"}
	h, err := p.circuits.prepare(ctx, c)
	if err != nil {
		return info, err
	}
	part.hint = h
	g, err := p.host.acquire(ctx, part.request(p.host, p.hostEntryBytes(h), 0, slotShape{}))
	if err != nil {
		return info, err
	}
	defer p.host.release(g, true)
	info.AlreadyResident = !g.loader
	if g.loader {
		t := time.Now()
		st, err := p.loadHost(ctx, c, h)
		info.HostLoad = time.Since(t)
		if err != nil {
			p.host.loaded(g.entry, nil, nil, info.HostLoad, err)
			return info, err
		}
		p.host.loaded(g.entry, st, st.close, info.HostLoad, nil)
	}
	if err := awaitEntry(ctx, g.entry); err != nil {
		return info, err
	}
	part.state = g.entry.value.(*circuitState)
	// The devices load their keys at once (each on its own copy of the partition, whose
	// timing records the load): a key made on the device takes a minute at 32 GiB.
	info.KeyLoads = make([]time.Duration, len(p.devices))
	errs := make([]error, len(p.devices))
	var wg sync.WaitGroup
	for i, d := range p.devices {
		dp := *part
		wg.Go(func() {
			dg, _, err := p.acquireDevice(ctx, d, &dp, 0)
			if err != nil {
				errs[i] = err
				return
			}
			info.KeyLoads[i] = dp.t.KeyLoad
			d.arena.release(dg, true)
		})
	}
	wg.Wait()
	for _, d := range p.devices {
		info.Tiers = append(info.Tiers, p.tierInfo(d, h))
	}
	for _, l := range info.KeyLoads {
		if l > 0 {
			info.AlreadyResident = false
		}
	}
	if err := errors.Join(errs...); err != nil {
		return info, err
	}
	if p.cfg.PreloadSlots {
		t := time.Now()
		info.Slots = p.preloadSlots(h)
		info.SlotTime = time.Since(t)
	}
	return info, nil
}

// Evict drops an idle circuit from the host and every device (its memory is released in
// the background). It reports whether the circuit was resident; a circuit in use gives
// ErrInUse.
func (p *Pipeline) Evict(id prover.CircuitID) (bool, error) {
	return p.host.evict(id)
}

// Status describes the memory arenas.
type Status struct {
	Host    MemoryInfo
	Devices []MemoryInfo
	Queued  int // partitions waiting for synthesis
	Handoff int // synthesized partitions waiting for a device worker
}

// Status returns a snapshot of the pipeline's state.
func (p *Pipeline) Status() Status {
	s := Status{Host: p.host.info(), Queued: p.runq.len(), Handoff: p.handoff.len()}
	for _, d := range p.devices {
		s.Devices = append(s.Devices, d.arena.info())
	}
	return s
}

// WriteTrace writes the timeline of recent stages as Chrome trace-event JSON (open it in
// Perfetto or chrome://tracing).
func (p *Pipeline) WriteTrace(w io.Writer) error { return p.trace.write(w) }
