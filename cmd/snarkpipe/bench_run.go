package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/snarkpipe/snarkpipe/prover"
	"github.com/snarkpipe/snarkpipe/prover/backend"
	"github.com/snarkpipe/snarkpipe/prover/backend/gpu"
	"github.com/snarkpipe/snarkpipe/prover/pipeline"
	"github.com/snarkpipe/snarkpipe/sealer"
)

// benchKeySource makes the benchmark keys: pipeline.BenchKeys (BenchSetup on the GPU,
// DevSetup on the CPU). Tests replace it with dev parameters cached across runs, since a
// CPU DevSetup of even the 2 KiB Winning circuit takes tens of seconds on a busy host.
var benchKeySource pipeline.KeySource = pipeline.BenchKeys{}

// benchParamsSource makes the same keys as host parameters for --host-keys, generated on
// maker (the first device). Tests replace it as benchKeySource.
var benchParamsSource = func(maker backend.Backend) pipeline.ParamsSource { return pipeline.BenchParams{Maker: maker} }

// benchRun is one `bench` invocation once its backends are open.
type benchRun struct {
	o             benchOptions
	pr            *progress
	mon           *memMonitor
	backends      []backend.Backend
	desc          string
	isGPU         bool
	closeBackends func()

	w    *workload
	ww   *workload // --window-during: the Window PoSt that arrives during C2
	keys *benchKeys
	pipe *pipeline.Pipeline
	reg  *prometheus.Registry
	bp   *benchProver
	svc  *sealer.Service
	res  benchResult
}

// benchProver is the pipeline as the Service sees it, remembering the pipeline job of
// each submission: its full partition timings (every device stage) feed the table.
type benchProver struct {
	*pipeline.Pipeline
	mu   sync.Mutex
	jobs []*pipeline.Job
}

func (p *benchProver) Submit(ctx context.Context, spec pipeline.JobSpec) (*pipeline.Job, error) {
	j, err := p.Pipeline.Submit(ctx, spec)
	if err == nil {
		p.mu.Lock()
		p.jobs = append(p.jobs, j)
		p.mu.Unlock()
	}
	return j, err
}

// submitted returns how many jobs were submitted and the last one.
func (p *benchProver) submitted() (int, *pipeline.Job) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.jobs) == 0 {
		return 0, nil
	}
	return len(p.jobs), p.jobs[len(p.jobs)-1]
}

// request is one submitted Service call of one proof.
type request struct {
	proof, index int
	id           sealer.JobID
	pj           *pipeline.Job
	submitted    time.Time
}

// outcome is a finished request.
type outcome struct {
	req *request
	res *sealer.JobResult
	err error
}

func (r *benchRun) do(ctx context.Context) (err error) {
	defer func() {
		if r.pipe != nil {
			r.pipe.Close()
		}
		r.closeBackends()
	}()
	o := r.o
	t := time.Now()
	r.pr.printf("synthetic inputs: %s %s, seed %d ...", o.kind, sizeLabel(o.size), o.seed)
	stopBeat := r.heartbeat(func() string { return "making synthetic inputs" })
	r.w, err = buildWorkload(o.kind, o.size, o.seed, o.partitions)
	stopBeat()
	if err != nil {
		return err
	}
	if o.windowDuring {
		if r.ww, err = buildWorkload("window", o.size, o.seed, 1); err != nil {
			return err
		}
		r.w.notes = append(r.w.notes, r.ww.notes...)
	}
	r.res.Setup.Inputs = seconds(time.Since(t))
	for _, n := range r.w.notes {
		r.pr.printf("  %s", n)
	}
	if err := r.start(); err != nil {
		return err
	}
	if o.cold {
		r.res.Setup.Skipped = true
		r.pr.printf("setup: skipped (--cold): the first proof records the circuit and makes the keys")
	} else {
		if r.ww != nil {
			if err := r.preloadWindow(ctx); err != nil {
				return err
			}
		}
		if err := r.preload(ctx); err != nil {
			return err
		}
	}
	proveErr := r.prove(ctx)
	traceErr := r.writeTrace()
	r.report()
	return errors.Join(proveErr, traceErr, r.writeJSON())
}

// start builds the pipeline (benchmark keys) and the Service over it.
func (r *benchRun) start() error {
	o := r.o
	r.keys = newBenchKeys(benchKeySource)
	if o.writeParams != "" {
		r.keys.writer = newParamsWriter(o.writeParams, r.pr.printf)
	}
	r.reg = prometheus.NewRegistry()
	codeID, _ := pipeline.CodeIDOfExecutable() // empty on failure: probe as usual
	deps := pipeline.Deps{Backends: r.backends, Keys: r.keys, Registerer: r.reg, CodeID: codeID}
	if o.hostKeys {
		maker, err := r.keyMaker()
		if err != nil {
			return err
		}
		r.keys.params = benchParamsSource(maker)
		deps.Keys, deps.Params = nil, r.keys
	}
	pipe, err := pipeline.New(o.pipe, deps)
	if err != nil {
		return err
	}
	pipe.Start()
	r.pipe = pipe
	r.bp = &benchProver{Pipeline: pipe}
	scfg := sealer.DefaultConfig()
	scfg.SkipVanillaCheck = true // checked once when the inputs were made
	scfg.AllowLargeOnCPU = o.allowCPULarge
	total := o.proofs*r.w.requests + 1 // + the Window PoSt of --window-during
	scfg.MaxJobs = max(scfg.MaxJobs, total+1)
	scfg.RecentJobs = max(scfg.RecentJobs, total+1)
	scfg.ResultTTL = sealer.Duration(24 * time.Hour)
	r.svc, err = sealer.New(scfg, sealer.Deps{
		Prover: r.bp, Backend: r.desc, GPU: r.isGPU, DevParams: true, VerifyingKey: r.keys.VerifyingKey,
		Provenance: func(prover.CircuitID) string { return "INSECURE benchmark keys (in memory)" },
	})
	if err != nil {
		return err
	}
	st := pipe.Status()
	r.res.Pipeline = benchCfg{
		SynthesisWorkers: o.pipe.SynthesisWorkers, WorkersPerDevice: o.pipe.WorkersPerDevice, HandoffDepth: o.pipe.HandoffDepth,
		EvalTasks: o.pipe.EvalTasks, HostBudget: st.Host.Capacity,
	}
	if len(st.Devices) > 0 {
		r.res.Pipeline.DeviceBudget = st.Devices[0].Capacity
	}
	r.res.Pipeline.ProofStreams = 1
	if cp, ok := r.backends[0].(backend.ConcurrentProver); ok {
		r.res.Pipeline.ProofStreams = cp.ProofStreams()
	}
	r.pr.printf("pipeline: %d synthesis workers, %d workers per device, %d proof streams per device, hand-off %d, host budget %s, device budget %s",
		o.pipe.SynthesisWorkers, o.pipe.WorkersPerDevice, r.res.Pipeline.ProofStreams, o.pipe.HandoffDepth,
		fmtBytes(uint64(r.res.Pipeline.HostBudget)), fmtBytes(uint64(r.res.Pipeline.DeviceBudget)))
	return nil
}

// keyMaker is the backend that makes --host-keys: the first proving backend, or the GPU
// of --key-device when it is not one of them (opened here, closed with the others).
func (r *benchRun) keyMaker() (backend.Backend, error) {
	o := r.o
	if !r.isGPU || o.keyDevice < 0 {
		return r.backends[0], nil
	}
	for i, d := range o.devices {
		if d == o.keyDevice {
			return r.backends[i], nil
		}
	}
	be, err := gpu.New(gpu.Config{Device: o.keyDevice, LibPath: o.lib})
	if err != nil {
		return nil, fmt.Errorf("bench: --key-device %d: %w", o.keyDevice, err)
	}
	closeOthers := r.closeBackends
	r.closeBackends = func() { closeOthers(); be.Close() }
	r.pr.printf("keys: made on gpu%d (%s), kept on the host", o.keyDevice, be.Device().Name)
	return be, nil
}

// preload records the circuit and makes its keys (and resident shape) on every device,
// timed, before any proof.
func (r *benchRun) preload(ctx context.Context) error {
	r.pr.printf("setup: probe and record %s, make benchmark keys on %d device(s) ...", r.w.circuit, len(r.backends))
	t := time.Now()
	stopBeat := r.heartbeat(func() string { return "setup running" })
	li, err := r.pipe.Preload(ctx, r.w.blank)
	stopBeat()
	took := time.Since(t)
	if err != nil {
		return fmt.Errorf("bench: preload %s: %w", r.w.circuit, err)
	}
	s := &r.res.Setup
	s.Preload = seconds(took)
	// The devices load their keys at the same time: the longest load is theirs.
	var keys time.Duration
	for _, d := range li.KeyLoads {
		s.KeyLoads = append(s.KeyLoads, seconds(d))
		keys = max(keys, d)
	}
	rest := took - li.HostLoad - keys - li.SlotTime
	s.Prepare, s.HostLoad = seconds(max(rest, 0)), seconds(li.HostLoad)
	s.Slots, s.SlotTime = li.Slots, seconds(li.SlotTime)
	s.KeyGens = r.keys.generations()
	r.pr.printf("setup done in %s: probe/record %s, host load %s", fmtDur(took), fmtDur(max(rest, 0)), fmtDur(li.HostLoad))
	for i, d := range li.KeyLoads {
		gen := time.Duration(0)
		if i < len(s.KeyGens) {
			gen = s.KeyGens[i].Took
		}
		r.pr.printf("  device %d: key load %s = key generation %s + shape upload and the rest %s", i, fmtDur(d), fmtDur(gen), fmtDur(max(d-gen, 0)))
	}
	for i, t := range li.Tiers {
		s.Tiers = append(s.Tiers, tierRow{Device: i, Tier: t.Tier, Streamed: t.Streamed.String(), Shape: t.Shape, HostBytes: t.HostBytes, DeviceBytes: t.DeviceBytes})
		if t.HostBytes == 0 {
			r.pr.printf("  device %d: memory tier %s: %s of the circuit on the device", i, t.Tier, fmtBytes(uint64(t.DeviceBytes)))
			continue
		}
		r.pr.printf("  device %d: memory tier %s: %s of the circuit on the device, %s in page-locked host memory, streamed every proof",
			i, t.Tier, fmtBytes(uint64(t.DeviceBytes)), fmtBytes(uint64(t.HostBytes)))
	}
	return nil
}

// prove submits the proofs (all at once, or one after the other), awaits and checks each,
// and keeps their rows. A cancelled ctx stops the waiting; what finished is reported.
func (r *benchRun) prove(ctx context.Context) error {
	o, w := r.o, r.w
	r.mon.resetPhase()
	start := time.Now()
	r.pr.printf("proving: %d %s proof(s) × %d request(s) × %d partition(s), %s ...", o.proofs, w.proofType, w.requests, w.partitions,
		map[bool]string{true: "sequentially", false: "all submitted at once"}[o.sequential])
	stopBeat := r.heartbeat(r.provingLine(o.proofs * w.requests * w.partitions))
	defer stopBeat()
	done := make(chan outcome, o.proofs*w.requests)
	var errs []error
	pending := 0
	var first chan int // --window-during: the first finished proof, once
	windowDone := make(chan struct{})
	if r.ww != nil {
		first = make(chan int, 1)
		go func() { defer close(windowDone); r.windowDuring(ctx, first, start) }()
	} else {
		close(windowDone)
	}
	defer func() {
		if first != nil {
			close(first) // no proof finished: the Window PoSt is not sent
		}
		<-windowDone
	}()
	for p := 1; p <= o.proofs; p++ {
		for i := 0; i < w.requests; i++ {
			req, err := r.submit(ctx, p, i)
			if err != nil {
				return errors.Join(append(errs, err)...)
			}
			pending++
			go func() {
				res, err := r.svc.Await(ctx, req.id)
				done <- outcome{req: req, res: res, err: err}
			}()
		}
		if o.sequential || p == o.proofs {
			for ; pending > 0; pending-- {
				out := <-done
				if err := r.collect(out, start); err != nil {
					errs = append(errs, err)
				}
				if first != nil {
					first <- out.req.proof
					first = nil
				}
			}
		}
	}
	return errors.Join(errs...)
}

// submit queues request i of proof p.
func (r *benchRun) submit(ctx context.Context, p, i int) (*request, error) {
	before, _ := r.bp.submitted()
	now := time.Now()
	id, err := r.w.submit(ctx, r.svc, i)
	if err != nil {
		return nil, fmt.Errorf("bench: proof %d request %d refused: %w", p, i, err)
	}
	after, pj := r.bp.submitted()
	if after != before+1 {
		return nil, fmt.Errorf("bench: proof %d request %d: %d pipeline jobs submitted, want 1", p, i, after-before)
	}
	return &request{proof: p, index: i, id: id, pj: pj, submitted: now}, nil
}

// collect checks one finished request and adds its rows and its proof's figures.
func (r *benchRun) collect(out outcome, start time.Time) error {
	req := out.req
	if out.err != nil {
		r.pr.printf("proof %d request %d (%s) FAILED: %v", req.proof, req.index, req.id, out.err)
		r.addProof(req, start, time.Now(), false)
		return fmt.Errorf("bench: proof %d request %d: %w", req.proof, req.index, out.err)
	}
	verified := true
	var checkErr error
	if r.w.check != nil {
		vk, err := r.keys.VerifyingKey(r.w.circuit)
		if err == nil {
			err = r.w.check(out.res, vk)
		}
		if err != nil {
			verified, checkErr = false, fmt.Errorf("bench: proof %d request %d does not verify: %w", req.proof, req.index, err)
		}
	}
	pres, err := req.pj.Await(context.Background()) // finished: the Service has its result
	if err == nil {
		r.res.Rows = append(r.res.Rows, partitionRows(req.proof, req.index, string(req.id), pres.Timings)...)
	}
	fin := out.res.Info.Finished
	r.addProof(req, start, fin, verified)
	status := "verified"
	if !verified {
		status = "NOT VERIFIED: " + checkErr.Error()
	}
	r.pr.printf("proof %d request %d (%s): %d partition(s) in %s, %s", req.proof, req.index, req.id, len(pres.Timings), fmtDur(fin.Sub(req.submitted)), status)
	return checkErr
}

// addProof merges a finished request into its proof's row.
func (r *benchRun) addProof(req *request, start, end time.Time, verified bool) {
	rows := r.res.ProofRows
	for i := range rows {
		if rows[i].Proof == req.proof {
			rows[i].Jobs += " " + string(req.id)
			rows[i].Start = min(rows[i].Start, seconds(req.submitted.Sub(start)))
			rows[i].End = max(rows[i].End, seconds(end.Sub(start)))
			rows[i].Latency = rows[i].End - rows[i].Start
			rows[i].Verified = rows[i].Verified && verified
			return
		}
	}
	s, e := seconds(req.submitted.Sub(start)), seconds(end.Sub(start))
	r.res.ProofRows = append(r.res.ProofRows, proofRow{Proof: req.proof, Jobs: string(req.id), Start: s, End: e, Latency: e - s, Verified: verified})
}

// heartbeat prints a progress line every o.progress until stopped: what line() says
// (the pipeline's progress) and the memory peaks of the current phase.
func (r *benchRun) heartbeat(line func() string) func() {
	if r.o.progress <= 0 {
		return func() {}
	}
	stop := make(chan struct{})
	ended := make(chan struct{})
	go func() {
		defer close(ended)
		t := time.NewTicker(r.o.progress)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				_, phase := r.mon.peaks()
				now := currentRSS()
				msg := line() + fmt.Sprintf(", RSS now %s, peak %s", fmtBytes(now), fmtBytes(max(now, phase.HostRSS)))
				for i, u := range phase.GPUUsed {
					msg += fmt.Sprintf(", gpu%d peak %s", i, fmtBytes(u))
				}
				r.pr.printf("  … %s", msg)
			}
		}
	}()
	return func() { close(stop); <-ended }
}

// provingLine is the heartbeat of the proving phase: partitions verified, queues, arena.
func (r *benchRun) provingLine(partitions int) func() string {
	return func() string {
		st := r.pipe.Status()
		return fmt.Sprintf("%d/%d partitions verified, %d queued, %d handed off, host arena %s",
			partitionsVerified(r.reg), partitions, st.Queued, st.Handoff, fmtBytes(uint64(st.Host.Used)))
	}
}

// partitionsVerified reads the pipeline's count of partitions that passed verification.
func partitionsVerified(reg *prometheus.Registry) int {
	mfs, err := reg.Gather()
	if err != nil {
		return 0
	}
	n := 0.0
	for _, mf := range mfs {
		if mf.GetName() != "snarkpipe_pipeline_partitions_total" {
			continue
		}
		for _, m := range mf.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "outcome" && l.GetValue() == "ok" {
					n += m.GetCounter().GetValue()
				}
			}
		}
	}
	return int(n)
}

// report fills the result's summary fields and prints the tables.
func (r *benchRun) report() {
	o, w := r.o, r.w
	res := &r.res
	res.Kind, res.ProofType, res.Circuit, res.SectorSize = o.kind, w.proofType, string(w.circuit), o.size
	res.Backend, res.GPU, res.Proofs, res.Requests, res.Partitions = r.desc, r.isGPU, o.proofs, w.requests, w.partitions
	res.Sequential, res.InputNotes, res.CheckedBy = o.sequential, w.notes, w.checkedBy
	res.Parameters = "INSECURE benchmark keys (known toxic waste, in memory only)"
	if len(res.Setup.KeyGens) == 0 {
		res.Setup.KeyGens = r.keys.generations()
	}
	res.Memory, res.ProvingMem = r.mon.peaks()
	res.summarize()
	r.writeSetup()
	res.writeTable(r.pr.w)
	if res.Window != nil {
		res.Window.write(r.pr.w)
	}
}

// writeSetup prints the cold-start phases.
func (r *benchRun) writeSetup() {
	s := &r.res.Setup
	w := r.pr.w
	fmt.Fprintf(w, "\nsetup (seconds): synthetic inputs %.3f, backend open %.3f", s.Inputs, s.Backend)
	if s.Skipped {
		fmt.Fprintln(w, ", preload skipped (--cold)")
	} else {
		fmt.Fprintf(w, ", preload %.3f (probe/record %.3f, host load %.3f", s.Preload, s.Prepare, s.HostLoad)
		for i, d := range s.KeyLoads {
			fmt.Fprintf(w, ", device %d key load %.3f", i, d)
		}
		for _, t := range s.Tiers {
			fmt.Fprintf(w, ", device %d tier %s", t.Device, t.Tier)
		}
		if s.Slots > 0 {
			fmt.Fprintf(w, ", %d slots preloaded %.3f", s.Slots, s.SlotTime)
		}
		fmt.Fprintln(w, ")")
	}
	for _, k := range s.KeyGens {
		fmt.Fprintf(w, "  benchmark key %s on %s: generated in %.3f s\n", k.Circuit, k.Device, k.Took.Seconds())
	}
}

// writeTrace writes the pipeline's timeline when asked.
func (r *benchRun) writeTrace() error {
	if r.o.trace == "" {
		return nil
	}
	f, err := os.Create(r.o.trace)
	if err != nil {
		return fmt.Errorf("bench: trace: %w", err)
	}
	err = r.pipe.WriteTrace(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("bench: trace: %w", err)
	}
	r.res.Trace = r.o.trace
	return nil
}

// writeJSON writes the results when asked.
func (r *benchRun) writeJSON() error {
	if r.o.json == "" {
		return nil
	}
	if err := r.res.writeJSON(r.o.json); err != nil {
		return fmt.Errorf("bench: json: %w", err)
	}
	fmt.Fprintf(r.pr.w, "  results               %s (JSON)\n", r.o.json)
	return nil
}
