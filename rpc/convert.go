package rpc

import (
	"github.com/snarkpipe/snarkpipe/rpc/api"
	"github.com/snarkpipe/snarkpipe/sealer"
)

// Conversions between the API's wire types and package sealer's. The two are kept apart
// so that rpc/api imports nothing of the service (clients build without it).

func sealRequest(r api.SealCommit2Request) *sealer.SealCommit2Request {
	return &sealer.SealCommit2Request{Sector: r.Sector, ProofType: r.ProofType, C1: r.C1, Key: r.Key}
}

func postRequest(r api.PoStRequest) *sealer.PoStRequest {
	return &sealer.PoStRequest{ProofType: r.ProofType, Miner: r.Miner, Randomness: r.Randomness, VanillaProofs: r.VanillaProofs, Partition: r.Partition, Key: r.Key}
}

func postResult(r *sealer.PoStResponse) *api.PoStResult {
	return &api.PoStResult{Proofs: r.Proofs, Skipped: r.Skipped, Job: jobInfo(r.Job)}
}

func jobInfo(j sealer.JobInfo) api.JobInfo {
	out := api.JobInfo{
		ID: api.JobID(j.ID), Kind: string(j.Kind), ProofType: j.ProofType, Priority: j.Priority, State: string(j.State),
		Partitions: j.Partitions, PartitionsDone: j.PartitionsDone, Sector: j.Sector,
		Submitted: j.Submitted, Finished: j.Finished, Error: j.Error,
	}
	if j.Error != "" {
		out.ErrorCode = apiError(&sealer.Error{Code: j.ErrorCode}).(*api.Error).Code
	}
	for _, t := range j.Timings {
		out.Timings = append(out.Timings, api.StageTiming(t))
	}
	return out
}

func status(s *sealer.Status) *api.Status {
	out := &api.Status{
		Version: api.Version, Backend: s.Backend, Devices: s.Devices, DevParams: s.DevParams, Draining: s.Draining,
		Queues:           make(map[string]api.QueueStatus, len(s.Queues)),
		PartitionsQueued: s.PartitionsQueued, PartitionsHandoff: s.PartitionsHandoff,
	}
	for _, p := range s.ProofTypes {
		out.ProofTypes = append(out.ProofTypes, api.ProofTypeStatus(p))
	}
	for k, q := range s.Queues {
		out.Queues[string(k)] = api.QueueStatus(q)
	}
	for _, r := range s.Resident {
		out.Resident = append(out.Resident, api.ResidentSRS(r))
	}
	for _, j := range s.Recent {
		out.Recent = append(out.Recent, jobInfo(j))
	}
	return out
}
