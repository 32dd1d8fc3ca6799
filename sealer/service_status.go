package sealer

import (
	"context"

	"github.com/snarkpipe/snarkpipe/prover"
	"github.com/snarkpipe/snarkpipe/prover/pipeline"
	"github.com/snarkpipe/snarkpipe/types"
)

// Status describes the service: backend, servable proof types, queues, resident
// parameters with provenance and recent jobs with stage timings.
func (s *Service) Status(ctx context.Context) (*Status, error) {
	queues, recent, draining := s.jobs.snapshot()
	st := &Status{
		Backend: s.deps.Backend, Devices: s.deps.Devices, DevParams: s.deps.DevParams,
		Draining: draining, Queues: queues, Recent: recent, ProofTypes: s.ProofTypes(),
	}
	ps := s.deps.Prover.Status()
	st.PartitionsQueued, st.PartitionsHandoff = ps.Queued, ps.Handoff
	st.Resident = append(st.Resident, s.resident("host", ps.Host)...)
	for _, d := range ps.Devices {
		st.Resident = append(st.Resident, s.resident(d.Name, d)...)
	}
	return st, nil
}

func (s *Service) resident(where string, mi pipeline.MemoryInfo) []ResidentSRS {
	out := make([]ResidentSRS, 0, len(mi.Resident))
	for _, r := range mi.Resident {
		out = append(out, ResidentSRS{CircuitID: string(r.Circuit), Where: where, Bytes: r.Bytes, Pinned: r.Pinned, Provenance: s.provenance(r.Circuit)})
	}
	return out
}

// ProofTypes says, for every registered seal, PoSt and update (SnapDeals) proof, whether this service can
// prove it and why not: NI-PoRep is never provable, 32/64 GiB need a GPU (or
// allow_large_on_cpu), and every type needs its parameters.
func (s *Service) ProofTypes() []ProofTypeStatus {
	var out []ProofTypeStatus
	for _, p := range types.SealProofs() {
		st := ProofTypeStatus{Name: p.RustName, Kind: "seal"}
		switch {
		case !p.Provable:
			st.Reason = "NI-PoRep C2 (SnarkPack aggregate) is not produced by snarkpipe"
		default:
			st.Servable, st.Reason = s.servable(p.SectorSize, prover.CircuitID(p.CircuitID))
		}
		out = append(out, st)
	}
	for _, p := range types.PoStProofs() {
		st := ProofTypeStatus{Name: p.RustName, Kind: "winning"}
		if p.Kind == types.PoStWindow {
			st.Kind = "window"
		}
		st.Servable, st.Reason = s.servable(p.SectorSize, prover.CircuitID(p.CircuitID))
		out = append(out, st)
	}
	for _, p := range types.UpdateProofs() {
		st := ProofTypeStatus{Name: p.RustName, Kind: "update"}
		st.Servable, st.Reason = s.servable(p.SectorSize, prover.CircuitID(p.CircuitID))
		out = append(out, st)
	}
	return out
}

func (s *Service) servable(sectorSize uint64, id prover.CircuitID) (bool, string) {
	if sectorSize >= largeSectorSize && !s.deps.GPU && !s.cfg.AllowLargeOnCPU {
		return false, "needs a GPU backend (or allow_large_on_cpu)"
	}
	if s.deps.Servable != nil {
		if err := s.deps.Servable(id); err != nil {
			return false, err.Error()
		}
	}
	return true, ""
}
