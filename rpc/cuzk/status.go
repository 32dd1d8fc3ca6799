package cuzk

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/snarkpipe/snarkpipe/rpc/cuzk/cuzkpb"
	"github.com/snarkpipe/snarkpipe/sealer"
	"github.com/snarkpipe/snarkpipe/types"
)

// queueKinds lists the service's job kinds with cuzk's names for them (cuzk-core
// types.rs ProofKind Display), in a stable order.
var queueKinds = []struct {
	kind sealer.JobKind
	name string
}{
	{sealer.JobSealCommit2, "porep-c2"},
	{sealer.JobWindowPoSt, "window-post"},
	{sealer.JobWinningPoSt, "winning-post"},
	{sealer.JobReplicaUpdate, "snap-update"},
}

// GetStatus reports queues (Curio's back-pressure sums pending + in_progress over them),
// resident parameters, devices and counters.
func (e *engine) GetStatus(ctx context.Context, _ *cuzkpb.GetStatusRequest) (*cuzkpb.GetStatusResponse, error) {
	st, err := e.svc.Status(ctx)
	if err != nil {
		return nil, statusError(err)
	}
	out := &cuzkpb.GetStatusResponse{
		TotalProofsCompleted: e.jobs.completed.Load(),
		TotalProofsFailed:    e.jobs.failed.Load(),
		UptimeSeconds:        uint64(time.Since(e.start) / time.Second),
	}
	for _, k := range queueKinds {
		q := st.Queues[k.kind]
		out.Queues = append(out.Queues, &cuzkpb.QueueStatus{ProofKind: k.name, Pending: uint32(q.Queued), InProgress: uint32(q.Running)})
	}
	for i, name := range st.Devices {
		out.Gpus = append(out.Gpus, &cuzkpb.GPUStatus{Ordinal: uint32(i), Name: name})
	}
	out.LoadedSrs, out.PinnedMemoryBytes = loadedSRS(st.Resident)
	return out, nil
}

// loadedSRS merges the resident entries of each circuit (host copy, device copies): HOT
// when a device holds it or its host copy is pinned, WARM for a plain host copy.
func loadedSRS(res []sealer.ResidentSRS) ([]*cuzkpb.SRSStatus, uint64) {
	byID := map[string]*cuzkpb.SRSStatus{}
	var pinned uint64
	for _, r := range res {
		s := byID[r.CircuitID]
		if s == nil {
			s = &cuzkpb.SRSStatus{CircuitId: r.CircuitID, Tier: cuzkpb.SRSStatus_WARM}
			byID[r.CircuitID] = s
		}
		s.SizeBytes += uint64(max(r.Bytes, 0))
		if r.Pinned || strings.HasPrefix(r.Where, "device") {
			s.Tier = cuzkpb.SRSStatus_HOT
		}
		if r.Pinned {
			pinned += uint64(max(r.Bytes, 0))
		}
	}
	out := make([]*cuzkpb.SRSStatus, 0, len(byID))
	for _, s := range byID {
		out = append(out, s)
	}
	sort.Slice(out, func(a, b int) bool { return out[a].CircuitId < out[b].CircuitId })
	return out, pinned
}

// GetMetrics renders the counters in Prometheus text format under cuzk's metric names,
// so dashboards built for cuzk keep working.
func (e *engine) GetMetrics(ctx context.Context, _ *cuzkpb.GetMetricsRequest) (*cuzkpb.GetMetricsResponse, error) {
	st, err := e.GetStatus(ctx, nil)
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	metric := func(name, typ, help string, v uint64) {
		fmt.Fprintf(&b, "# HELP %s %s\n# TYPE %s %s\n%s %d\n", name, help, name, typ, name, v)
	}
	metric("cuzk_proofs_completed_total", "counter", "Total proofs completed", st.TotalProofsCompleted)
	metric("cuzk_proofs_failed_total", "counter", "Total proofs failed", st.TotalProofsFailed)
	metric("cuzk_uptime_seconds", "gauge", "Daemon uptime", st.UptimeSeconds)
	var pending, running uint64
	for _, q := range st.Queues {
		pending += uint64(q.Pending)
		running += uint64(q.InProgress)
	}
	metric("cuzk_queue_depth", "gauge", "Current queue depth", pending)
	metric("cuzk_running_jobs", "gauge", "Currently running proofs", running)
	metric("cuzk_gpu_workers", "gauge", "Number of GPU workers", uint64(len(st.Gpus)))
	b.WriteString("# HELP cuzk_queue_jobs Jobs per proof kind and state\n# TYPE cuzk_queue_jobs gauge\n")
	for _, q := range st.Queues {
		fmt.Fprintf(&b, "cuzk_queue_jobs{proof_kind=%q,state=\"pending\"} %d\n", q.ProofKind, q.Pending)
		fmt.Fprintf(&b, "cuzk_queue_jobs{proof_kind=%q,state=\"in_progress\"} %d\n", q.ProofKind, q.InProgress)
	}
	return &cuzkpb.GetMetricsResponse{PrometheusText: b.String()}, nil
}

// PreloadSRS makes a circuit's parameters resident ("porep-32g", "wpost-32g",
// "winning-2k", "snap-32g", ...).
func (e *engine) PreloadSRS(ctx context.Context, req *cuzkpb.PreloadSrsRequest) (*cuzkpb.PreloadSrsResponse, error) {
	ref, err := proofTypeOfCircuit(req.GetCircuitId())
	if err != nil {
		return nil, err
	}
	res, err := e.svc.Preload(ctx, ref)
	if err != nil {
		return nil, statusError(err)
	}
	return &cuzkpb.PreloadSrsResponse{AlreadyLoaded: !res.Resident, LoadTimeMs: millis(res.Took)}, nil
}

// EvictSRS drops a circuit's parameters; freed_bytes is what Status counted for it.
func (e *engine) EvictSRS(ctx context.Context, req *cuzkpb.EvictSrsRequest) (*cuzkpb.EvictSrsResponse, error) {
	ref, err := proofTypeOfCircuit(req.GetCircuitId())
	if err != nil {
		return nil, err
	}
	var size uint64
	if st, err := e.svc.Status(ctx); err == nil {
		for _, r := range st.Resident {
			if r.CircuitID == req.GetCircuitId() {
				size += uint64(max(r.Bytes, 0))
			}
		}
	}
	was, err := e.svc.Evict(ctx, ref)
	if err != nil {
		return nil, statusError(err)
	}
	if !was {
		size = 0
	}
	return &cuzkpb.EvictSrsResponse{WasLoaded: was, FreedBytes: size}, nil
}

// proofTypeOfCircuit finds a registered proof whose circuit has this id. Every seal
// proof of a size shares one circuit, as do the Window PoSt versions, so the first match
// stands for all.
func proofTypeOfCircuit(id string) (sealer.ProofTypeRef, error) {
	for _, p := range types.SealProofs() {
		if p.CircuitID == id && p.Provable {
			return sealer.SealRef(p.ID), nil
		}
	}
	for _, p := range types.PoStProofs() {
		if p.CircuitID == id {
			return sealer.PoStRef(p.ID), nil
		}
	}
	for _, p := range types.UpdateProofs() {
		if p.CircuitID == id {
			return sealer.UpdateRef(p.ID), nil
		}
	}
	return sealer.ProofTypeRef{}, invalidArgument("unknown circuit_id %q (want porep-, wpost-, winning- or snap- followed by 2k, 8m, 512m, 32g or 64g)", id)
}
