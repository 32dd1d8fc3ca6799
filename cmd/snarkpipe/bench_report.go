package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/snarkpipe/snarkpipe/prover/pipeline"
)

// benchResult is everything `bench` measured; --json writes it as is. Durations are
// seconds.
type benchResult struct {
	Kind        string     `json:"kind"`
	ProofType   string     `json:"proof_type"`
	Circuit     string     `json:"circuit"`
	SectorSize  uint64     `json:"sector_size"`
	Backend     string     `json:"backend"`
	GPU         bool       `json:"gpu"`
	Parameters  string     `json:"parameters"`
	Proofs      int        `json:"proofs"`
	Requests    int        `json:"requests_per_proof"`
	Partitions  int        `json:"partitions_per_request"`
	Sequential  bool       `json:"sequential"`
	Pipeline    benchCfg   `json:"pipeline"`
	InputNotes  []string   `json:"input_notes"`
	CheckedBy   string     `json:"checked_by"`
	Setup       setupRow   `json:"setup"`
	Rows        []partRow  `json:"partitions"`
	ProofRows   []proofRow `json:"proof_rows"`
	Verified    int        `json:"verified_proofs"`
	FirstProof  float64    `json:"first_proof_s"`
	SteadyState float64    `json:"steady_state_s_per_proof,omitempty"`
	PerHour     float64    `json:"proofs_per_hour,omitempty"`
	Wall        float64    `json:"proving_wall_s"`
	Memory      memPeaks   `json:"memory_run"`
	ProvingMem  memPeaks   `json:"memory_proving"`
	Trace       string     `json:"trace,omitempty"`
	Window      *windowRow `json:"window_during_c2,omitempty"`
}

// benchCfg is the pipeline configuration the run used.
type benchCfg struct {
	SynthesisWorkers int   `json:"synthesis_workers"`
	WorkersPerDevice int   `json:"workers_per_device"`
	ProofStreams     int   `json:"proof_streams"`
	HandoffDepth     int   `json:"handoff_depth"`
	EvalTasks        int   `json:"eval_tasks"`
	HostBudget       int64 `json:"host_budget_bytes"`
	DeviceBudget     int64 `json:"device_budget_bytes"`
}

// setupRow is the cold-start work before the first proof.
type setupRow struct {
	Inputs   float64   `json:"synthetic_inputs_s"`
	Backend  float64   `json:"backend_open_s"`
	Preload  float64   `json:"preload_s"`
	Prepare  float64   `json:"probe_record_s"`
	HostLoad float64   `json:"host_load_s"`
	KeyLoads []float64 `json:"device_key_loads_s"`
	Slots    int       `json:"preloaded_slots"` // pooled slots allocated and page-locked (pipeline preload_slots)
	SlotTime float64   `json:"preloaded_slots_s"`
	KeyGens  []keyMade `json:"key_generations"`
	Tiers    []tierRow `json:"memory_tiers"`
	Skipped  bool      `json:"preload_skipped"`
}

// tierRow is a circuit's memory tier on one device (pipeline.TierInfo).
type tierRow struct {
	Device      int    `json:"device"`
	Tier        string `json:"tier"`
	Streamed    string `json:"streamed_vectors"`
	Shape       bool   `json:"streamed_shape"`
	HostBytes   int64  `json:"host_key_bytes"`
	DeviceBytes int64  `json:"device_entry_bytes"`
}

// partRow is one partition's time split.
type partRow struct {
	Proof     int     `json:"proof"`
	Request   int     `json:"request"`
	Job       string  `json:"job"`
	Partition int     `json:"partition"`
	Worker    string  `json:"worker"`
	Resident  bool    `json:"precompiled"` // A·z on the device
	Queue     float64 `json:"queue_s"`     // submitted → synthesis start
	Load      float64 `json:"load_s"`      // probe/record, memory waits, circuit and key loads, slot pinning
	Pin       float64 `json:"pin_s"`       // page-locking a new slot (part of load; waits for the device's lock)
	Witness   float64 `json:"witness_s"`   // witness fill (+ bit-packing)
	Handoff   float64 `json:"handoff_s"`
	DevWait   float64 `json:"device_wait_s"` // inside the device call: waiting for the device (other proofs on its stream)
	Buffers   float64 `json:"buffers_s"`     // inside the device call: checking out (first: allocating) the proof's device vectors
	FillWait  float64 `json:"fill_wait_s"`   // inside a streamed device call: waiting for the host's fill
	Upload    float64 `json:"upload_s"`
	Az        float64 `json:"az_s"` // A·z, B·z, C·z (device, or host inside synthesis)
	Quotient  float64 `json:"quotient_s"`
	MSMH      float64 `json:"msm_h_s"`
	MSML      float64 `json:"msm_l_s"`
	MSMA      float64 `json:"msm_a_s"`
	MSMB1     float64 `json:"msm_b1_s"`
	MSMB2     float64 `json:"msm_b2_s"`
	Assemble  float64 `json:"assemble_s"`
	Device    float64 `json:"device_s"` // the device call, end to end
	// OOMRetries: the device call ran out of device memory once and ran again, whole or
	// its side-stream stages (the stage times are the second run's; Device includes both).
	OOMRetries int     `json:"oom_retries,omitempty"`
	Verify     float64 `json:"verify_s"`
	Total      float64 `json:"total_s"` // submitted → verified
}

// proofRow is one proof (all its requests and partitions).
type proofRow struct {
	Proof    int     `json:"proof"`
	Jobs     string  `json:"jobs"`
	Start    float64 `json:"submitted_at_s"` // since proving started
	End      float64 `json:"finished_at_s"`
	Latency  float64 `json:"latency_s"`
	Verified bool    `json:"verified"`
}

func seconds(d time.Duration) float64 { return d.Seconds() }

// partitionRows turns one request's pipeline timings into rows.
func partitionRows(proof, request int, job string, ts []pipeline.PartitionTiming) []partRow {
	out := make([]partRow, len(ts))
	for i, t := range ts {
		r := partRow{
			Proof: proof, Request: request, Job: job, Partition: i, Worker: t.Worker,
			Queue:   seconds(t.SynthStart.Sub(t.Submitted)),
			Load:    seconds(t.Prepare + t.Admission + t.HostLoad + t.Device + t.KeyLoad + t.Pin),
			Pin:     seconds(t.Pin),
			Witness: seconds(t.Witness + t.Pack),
			Handoff: seconds(t.Handoff),
			Verify:  seconds(t.Verify),
			Total:   seconds(t.Done.Sub(t.Submitted)),
			Device:  seconds(t.ProveEnd.Sub(t.ProveStart)),
		}
		if rt := t.Resident; rt.Total > 0 {
			r.Resident = true
			r.DevWait, r.Buffers, r.FillWait = seconds(rt.Wait), seconds(rt.Buffers), seconds(rt.FillWait)
			r.Upload, r.Az, r.Quotient = seconds(rt.Upload), seconds(rt.Eval), seconds(rt.Quotient)
			r.MSMH, r.MSML, r.MSMA, r.MSMB1, r.MSMB2 = seconds(rt.MSMH), seconds(rt.MSML), seconds(rt.MSMA), seconds(rt.MSMB1), seconds(rt.MSMB2)
			r.Assemble = seconds(rt.Assemble)
			r.OOMRetries = rt.OutOfMemoryRetries
		} else {
			p := t.Prover
			r.Az, r.Quotient = seconds(t.Eval), seconds(p.Quotient)
			r.MSMH, r.MSML, r.MSMA, r.MSMB1, r.MSMB2 = seconds(p.MSMH), seconds(p.MSML), seconds(p.MSMA), seconds(p.MSMB1), seconds(p.MSMB2)
		}
		out[i] = r
	}
	return out
}

// oomRetried counts the partitions whose device call ran out of memory and ran again.
func (r *benchResult) oomRetried() int {
	n := 0
	for _, row := range r.Rows {
		if row.OOMRetries > 0 {
			n++
		}
	}
	return n
}

// summarize fills the per-proof figures: first proof latency, steady-state seconds per
// proof (time between completions after the first) and proofs per hour.
func (r *benchResult) summarize() {
	sort.Slice(r.ProofRows, func(i, j int) bool { return r.ProofRows[i].Proof < r.ProofRows[j].Proof })
	var ends []float64
	r.Verified = 0
	for _, p := range r.ProofRows {
		if p.Verified {
			r.Verified++
			ends = append(ends, p.End)
		}
	}
	if len(ends) == 0 {
		return
	}
	sort.Float64s(ends)
	first := ends[0]
	for _, p := range r.ProofRows {
		if p.Verified && p.End == first {
			r.FirstProof = p.Latency
			break
		}
	}
	r.Wall = ends[len(ends)-1]
	if len(ends) >= 2 {
		r.SteadyState = (ends[len(ends)-1] - first) / float64(len(ends)-1)
		if r.SteadyState > 0 {
			r.PerHour = 3600 / r.SteadyState
		}
	}
}

// tableColumns are the per-partition table's columns after the identifying ones; field
// points into a row, so that the mean row is built from the same list.
var tableColumns = []struct {
	name  string
	field func(*partRow) *float64
}{
	{"queue", func(r *partRow) *float64 { return &r.Queue }},
	{"load", func(r *partRow) *float64 { return &r.Load }},
	{"witness", func(r *partRow) *float64 { return &r.Witness }},
	{"handoff", func(r *partRow) *float64 { return &r.Handoff }},
	{"dev wait", func(r *partRow) *float64 { return &r.DevWait }},
	{"buffers", func(r *partRow) *float64 { return &r.Buffers }},
	{"fill wait", func(r *partRow) *float64 { return &r.FillWait }},
	{"upload", func(r *partRow) *float64 { return &r.Upload }},
	{"A·z", func(r *partRow) *float64 { return &r.Az }},
	{"quotient", func(r *partRow) *float64 { return &r.Quotient }},
	{"msm H", func(r *partRow) *float64 { return &r.MSMH }},
	{"msm L", func(r *partRow) *float64 { return &r.MSML }},
	{"msm A", func(r *partRow) *float64 { return &r.MSMA }},
	{"msm B1", func(r *partRow) *float64 { return &r.MSMB1 }},
	{"msm B2", func(r *partRow) *float64 { return &r.MSMB2 }},
	{"assemble", func(r *partRow) *float64 { return &r.Assemble }},
	{"device", func(r *partRow) *float64 { return &r.Device }},
	{"verify", func(r *partRow) *float64 { return &r.Verify }},
	{"total", func(r *partRow) *float64 { return &r.Total }},
}

// writeTable prints the per-partition table (seconds), a mean row over the partitions of
// the proofs after the first (all of them when there is one proof), the per-proof table
// and the summary.
func (r *benchResult) writeTable(w io.Writer) {
	fmt.Fprintf(w, "\nper partition (seconds; A·z %s):\n", azWhere(r.Rows))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	head := []string{"proof", "req", "part", "worker"}
	for _, c := range tableColumns {
		head = append(head, c.name)
	}
	fmt.Fprintln(tw, strings.Join(head, "\t")+"\t")
	for i := range r.Rows {
		row := &r.Rows[i]
		cells := []string{fmt.Sprint(row.Proof), fmt.Sprint(row.Request), fmt.Sprint(row.Partition), row.Worker}
		for _, c := range tableColumns {
			cells = append(cells, fmt.Sprintf("%.3f", *c.field(row)))
		}
		fmt.Fprintln(tw, strings.Join(cells, "\t")+"\t")
	}
	if mean, label, ok := r.meanRow(); ok {
		cells := []string{"mean", "", "", label}
		for _, c := range tableColumns {
			cells = append(cells, fmt.Sprintf("%.3f", *c.field(&mean)))
		}
		fmt.Fprintln(tw, strings.Join(cells, "\t")+"\t")
	}
	tw.Flush()
	fmt.Fprintln(w, "  queue: submitted → synthesis; load: probe/record, memory waits, circuit and key loads, pinning a new slot;")
	fmt.Fprintln(w, "  witness: fill (+ bit-packing); a streamed partition's fill runs beside its device call, which")
	fmt.Fprintln(w, "  starts on the aux filled so far (fill wait: the device call waiting for the fill);")
	fmt.Fprintln(w, "  device: the device call end to end (its stages: upload … assemble); total: submitted → verified.")

	fmt.Fprintln(w, "\nper proof (seconds since proving started):")
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "proof\tjobs\tsubmitted\tfinished\tlatency\tverified\t")
	for _, p := range r.ProofRows {
		fmt.Fprintf(tw, "%d\t%s\t%.3f\t%.3f\t%.3f\t%v\t\n", p.Proof, p.Jobs, p.Start, p.End, p.Latency, p.Verified)
	}
	tw.Flush()
	r.writeSummary(w)
}

// meanRow averages the partitions of every proof after the first (steady state), or of
// the only proof.
func (r *benchResult) meanRow() (partRow, string, bool) {
	var sel []*partRow
	for i := range r.Rows {
		if r.Proofs == 1 || r.Rows[i].Proof > 1 {
			sel = append(sel, &r.Rows[i])
		}
	}
	if len(sel) == 0 {
		return partRow{}, "", false
	}
	label := "proofs 2+"
	if r.Proofs == 1 {
		label = "all"
	}
	var m partRow
	for _, c := range tableColumns {
		var sum float64
		for _, row := range sel {
			sum += *c.field(row)
		}
		*c.field(&m) = sum / float64(len(sel))
	}
	return m, label, true
}

func azWhere(rows []partRow) string {
	for _, r := range rows {
		if !r.Resident {
			return "on the host, inside synthesis"
		}
	}
	return "on the device (pre-compiled path)"
}

func (r *benchResult) writeSummary(w io.Writer) {
	fmt.Fprintf(w, "\nsummary: %s %s on %s, %s\n", r.Kind, r.ProofType, r.Backend, r.Parameters)
	fmt.Fprintf(w, "  proofs verified       %d of %d (%s)\n", r.Verified, r.Proofs, r.CheckedBy)
	if r.Verified > 0 {
		fmt.Fprintf(w, "  first proof           %.3f s latency\n", r.FirstProof)
	}
	if r.SteadyState > 0 {
		fmt.Fprintf(w, "  steady state          %.3f s per proof (completions after the first), %.1f proofs/hour\n", r.SteadyState, r.PerHour)
	}
	fmt.Fprintf(w, "  proving wall time     %.3f s", r.Wall)
	if r.Verified > 0 {
		fmt.Fprintf(w, " (%.3f s per proof over the whole run, first included)", r.Wall/float64(r.Verified))
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "  peak host RSS         %s (run), %s (while proving)\n", fmtBytes(r.Memory.HostRSS), fmtBytes(r.ProvingMem.HostRSS))
	for i := range r.Memory.GPUUsed {
		fmt.Fprintf(w, "  peak GPU %d memory     %s used of %s (run), %s (while proving); used = total − free, all processes\n",
			i, fmtBytes(r.Memory.GPUUsed[i]), fmtBytes(r.Memory.GPUTotal[i]), fmtBytes(r.ProvingMem.GPUUsed[i]))
	}
	if n := r.oomRetried(); n > 0 {
		fmt.Fprintf(w, "  out-of-memory retries %d of %d partitions ran out of device memory and ran again, whole or their side-stream stages (device time includes the failed run)\n",
			n, len(r.Rows))
	}
	for _, e := range r.Memory.GPUErrors {
		fmt.Fprintf(w, "  GPU memory not measured: %s\n", e)
	}
	if r.Trace != "" {
		fmt.Fprintf(w, "  trace                 %s (chrome://tracing or ui.perfetto.dev)\n", r.Trace)
	}
}

// writeJSON writes the result to path.
func (r *benchResult) writeJSON(path string) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

func fmtBytes(b uint64) string {
	switch {
	case b == 0:
		return "n/a"
	case b >= 1<<30:
		return fmt.Sprintf("%.2f GiB", float64(b)/(1<<30))
	default:
		return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20))
	}
}

func fmtDur(d time.Duration) string { return fmt.Sprintf("%.3fs", d.Seconds()) }
