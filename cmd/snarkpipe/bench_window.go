package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/snarkpipe/snarkpipe/prover/pipeline"
)

// Window PoSt during C2 (`bench porep --window-during`): one Window PoSt partition of the
// same sector size arrives once the first C2 proof is done, while the other C2 proofs are
// in flight. Its circuit is preloaded before the PoRep one, so its recording (and, with
// --host-keys, its parameters) are on the host; whether its key is still on the device
// when it arrives depends on the device memory left beside the PoRep key. The report
// gives its latency with the time split, and each device's key loads and evictions during
// it: a swap shows as evictions.

// windowRow is the Window PoSt that arrived during C2.
type windowRow struct {
	ProofType   string   `json:"proof_type"`
	AfterProof  int      `json:"after_proof"`    // submitted when this C2 proof finished
	Submitted   float64  `json:"submitted_at_s"` // since proving started
	Latency     float64  `json:"latency_s"`      // submitted → finished, at the Service
	Verified    bool     `json:"verified"`
	Error       string   `json:"error,omitempty"`
	Partition   *partRow `json:"partition,omitempty"`
	Loads       [2][]int `json:"device_key_loads_before_after"`
	Evictions   [2][]int `json:"device_evictions_before_after"`
	PreloadSecs float64  `json:"preload_s"`
	Notes       []string `json:"input_notes"`
}

// deviceCounts returns each device's key loads and evictions so far.
func deviceCounts(st pipeline.Status) (loads, evictions []int) {
	for _, d := range st.Devices {
		loads = append(loads, d.Loads)
		evictions = append(evictions, d.Evictions)
	}
	return loads, evictions
}

// preloadWindow records the Window PoSt circuit and loads its key, before the PoRep
// circuit (whose preload then finds the device as C2 will).
func (r *benchRun) preloadWindow(ctx context.Context) error {
	r.pr.printf("setup: preload the Window PoSt circuit %s first (--window-during) ...", r.ww.circuit)
	t := time.Now()
	stopBeat := r.heartbeat(func() string { return "Window PoSt setup running" })
	_, err := r.pipe.Preload(ctx, r.ww.blank)
	stopBeat()
	if err != nil {
		return fmt.Errorf("bench: preload %s: %w", r.ww.circuit, err)
	}
	r.res.Window = &windowRow{ProofType: r.ww.proofType, PreloadSecs: seconds(time.Since(t)), Notes: r.ww.notes}
	r.pr.printf("  Window PoSt circuit ready in %s", fmtDur(time.Since(t)))
	return nil
}

// windowDuring submits the Window PoSt once first delivers the first finished C2 proof
// (a closed first: none will), waits for it and records it, beside the C2 collection.
func (r *benchRun) windowDuring(ctx context.Context, first <-chan int, start time.Time) {
	row := r.res.Window
	var after int
	select {
	case n, ok := <-first:
		if !ok {
			row.Error = "not sent: proving ended before a C2 proof finished"
			return
		}
		after = n
	case <-ctx.Done():
		row.Error = "not sent: " + ctx.Err().Error()
		return
	}
	row.AfterProof = after
	row.Loads[0], row.Evictions[0] = deviceCounts(r.pipe.Status())
	submitted := time.Now()
	row.Submitted = seconds(submitted.Sub(start))
	r.pr.printf("Window PoSt submitted during C2 (after proof %d) ...", after)
	id, err := r.ww.submit(ctx, r.svc, 0)
	if err != nil {
		row.Error = err.Error()
		return
	}
	_, pj := r.bp.submitted()
	res, err := r.svc.Await(ctx, id)
	row.Loads[1], row.Evictions[1] = deviceCounts(r.pipe.Status())
	if err != nil {
		row.Error = err.Error()
		row.Latency = seconds(time.Since(submitted))
		r.pr.printf("Window PoSt during C2 FAILED: %v", err)
		return
	}
	row.Latency = seconds(res.Info.Finished.Sub(submitted))
	row.Verified = true // the Service verified it against the benchmark VK
	if pres, err := pj.Await(context.Background()); err == nil && len(pres.Timings) == 1 {
		p := partitionRows(0, 0, string(id), pres.Timings)[0]
		row.Partition = &p
	}
	r.pr.printf("Window PoSt during C2: %s latency, verified", fmtDur(res.Info.Finished.Sub(submitted)))
}

// write prints the Window PoSt's figures.
func (w *windowRow) write(out io.Writer) {
	fmt.Fprintf(out, "\nWindow PoSt during C2 (%s; circuit preloaded in %.3f s before the PoRep one):\n", w.ProofType, w.PreloadSecs)
	if w.Error != "" {
		fmt.Fprintf(out, "  FAILED after %.3f s: %s\n", w.Latency, w.Error)
		return
	}
	fmt.Fprintf(out, "  submitted at %.3f s (when proof %d finished), latency %.3f s, verified %v\n", w.Submitted, w.AfterProof, w.Latency, w.Verified)
	if p := w.Partition; p != nil {
		fmt.Fprintf(out, "  queue %.3f, load %.3f (key loads, memory waits), witness %.3f, hand-off %.3f, device %.3f, verify %.3f (seconds)\n",
			p.Queue, p.Load, p.Witness, p.Handoff, p.Device, p.Verify)
	}
	for i := range w.Loads[0] {
		fmt.Fprintf(out, "  device %d while it ran: key loads %d → %d, evictions %d → %d\n", i, w.Loads[0][i], w.Loads[1][i], w.Evictions[0][i], w.Evictions[1][i])
	}
}
