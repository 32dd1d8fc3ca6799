package sealer

import (
	"context"

	"github.com/snarkpipe/snarkpipe/prover"
	"github.com/snarkpipe/snarkpipe/prover/pipeline"
	"github.com/snarkpipe/snarkpipe/sealer/update"
	"github.com/snarkpipe/snarkpipe/types"
	"github.com/snarkpipe/snarkpipe/types/vanilla"
)

// JobReplicaUpdate proves a SnapDeals sector update (ProveReplicaUpdate2). It runs at the
// seal priority: like C2 it is sealing work, not a deadline-bound PoSt.
const JobReplicaUpdate JobKind = "replica-update"

// SubmitReplicaUpdate2 validates a sector update's vanilla partition proofs (decode, native
// verification against the three commitments) and queues its proof. Bad input fails here,
// before any proving.
func (s *Service) SubmitReplicaUpdate2(ctx context.Context, req *ReplicaUpdateRequest) (JobID, error) {
	id, err := s.submitReplicaUpdate2(ctx, req)
	var sector string
	if req != nil {
		sector = sealSector(req.Sector)
	}
	s.jobs.logSubmitted(id, JobReplicaUpdate, sector, err)
	return id, err
}

func (s *Service) submitReplicaUpdate2(ctx context.Context, req *ReplicaUpdateRequest) (JobID, error) {
	if req == nil {
		return "", newError(CodeInvalidInput, "", nil, "no request")
	}
	info, err := types.UpdateProof(req.UpdateProofType)
	if err != nil {
		return "", newError(CodeInvalidInput, "", err, "unknown registered update proof")
	}
	place, err := s.admit(info.RustName, info.SectorSize, prover.CircuitID(info.CircuitID))
	if err != nil {
		return "", err
	}
	defer place.release()
	var comms [3]types.Commitment
	for i, c := range []struct {
		name string
		b    []byte
	}{{"comm_r_old", req.CommROld}, {"comm_d_new", req.CommDNew}, {"comm_r_new", req.CommRNew}} {
		if len(c.b) != 32 {
			return "", newError(CodeInvalidInput, info.RustName, nil, "%s of %d bytes, want 32", c.name, len(c.b))
		}
		copy(comms[i][:], c.b)
	}
	proofs, err := vanilla.DecodeUpdatePartitionProofs(info, req.VanillaProofs)
	if err != nil {
		return "", newError(CodeInvalidInput, info.RustName, err, "vanilla partition proofs")
	}
	if !s.cfg.SkipVanillaCheck {
		pub := &UpdatePublic{Proof: info, CommROld: comms[0], CommDNew: comms[1], CommRNew: comms[2], H: info.HDefault}
		if err := VerifyUpdate(pub, proofs); err != nil {
			return "", newError(CodeInvalidInput, info.RustName, err, "vanilla partition proofs")
		}
	}
	partitions, err := update.Circuits(info, comms[0], comms[1], comms[2], proofs)
	if err != nil {
		return "", newError(CodeInvalidInput, info.RustName, err, "vanilla partition proofs")
	}
	circuits := make([]prover.Circuit, len(partitions))
	for k, c := range partitions {
		circuits[k] = c
	}
	want := info.ProofLen
	assemble := func(res pipeline.Result) (*JobResult, error) {
		b := res.Bytes()
		if len(b) != want {
			return nil, newError(CodeInternal, info.RustName, nil, "proof of %d bytes, want %d", len(b), want)
		}
		return &JobResult{Proof: b}, nil
	}
	return s.submit(ctx, place, JobReplicaUpdate, info.RustName, sealSector(req.Sector), req.Key, s.cfg.SealPriority, circuits, assemble)
}

// updateRefInfo is the table row of a ProofTypeRef naming an update proof (and nothing else).
func updateRefInfo(ref ProofTypeRef) (*types.UpdateProofInfo, error) {
	if ref.Seal != nil || ref.PoSt != nil {
		return nil, newError(CodeInvalidInput, "", nil, "name exactly one of a seal, a PoSt or an update proof type")
	}
	info, err := types.UpdateProof(*ref.Update)
	if err != nil {
		return nil, newError(CodeInvalidInput, "", err, "registered update proof")
	}
	return info, nil
}

// updateCircuitOf is circuitOf for an update proof: the blank EmptySectorUpdate circuit.
func updateCircuitOf(ref ProofTypeRef) (prover.Circuit, string, uint64, error) {
	info, err := updateRefInfo(ref)
	if err != nil {
		return nil, "", 0, err
	}
	c, err := update.Blank(update.ConfigFor(info))
	if err != nil {
		return nil, "", 0, newError(CodeInternal, info.RustName, err, "blank circuit")
	}
	return c, info.RustName, info.SectorSize, nil
}
