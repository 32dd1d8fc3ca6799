package sealer

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/filecoin-project/go-state-types/abi"
	"github.com/filecoin-project/go-state-types/proof"
	"github.com/snarkpipe/snarkpipe/prover"
	"github.com/snarkpipe/snarkpipe/prover/pipeline"
	"github.com/snarkpipe/snarkpipe/sealer/porep"
	"github.com/snarkpipe/snarkpipe/sealer/post"
	"github.com/snarkpipe/snarkpipe/types"
	"github.com/snarkpipe/snarkpipe/types/vanilla"
)

// largeSectorSize is the smallest sector size refused on a CPU-only service (32 GiB).
const largeSectorSize = 32 << 30

// SubmitSealCommit2 validates a C1 output (decode, native verification) and queues its
// proof; it returns when the job is admitted. Bad input fails here, before any proving.
func (s *Service) SubmitSealCommit2(ctx context.Context, req *SealCommit2Request) (JobID, error) {
	id, err := s.submitSealCommit2(ctx, req)
	var sector string
	if req != nil {
		sector = sealSector(req.Sector)
	}
	s.jobs.logSubmitted(id, JobSealCommit2, sector, err)
	return id, err
}

func (s *Service) submitSealCommit2(ctx context.Context, req *SealCommit2Request) (JobID, error) {
	if req == nil {
		return "", newError(CodeInvalidInput, "", nil, "no request")
	}
	info, err := types.SealProof(req.ProofType)
	if err != nil {
		return "", newError(CodeInvalidInput, "", err, "registered seal proof")
	}
	if !info.Provable {
		return "", unsupported(info.RustName, "NI-PoRep C2 returns a SnarkPack aggregate of the partition proofs, which snarkpipe does not produce")
	}
	place, err := s.admit(info.RustName, info.SectorSize, prover.CircuitID(info.CircuitID))
	if err != nil {
		return "", err
	}
	defer place.release()
	c1, err := vanilla.DecodeC1(req.C1)
	if err != nil {
		return "", newError(CodeInvalidInput, info.RustName, err, "C1 output")
	}
	if c1.RegisteredProof != info.RustName {
		return "", newError(CodeInvalidInput, info.RustName, nil, "C1 output is for %q, request says %s", c1.RegisteredProof, info.RustName)
	}
	if s.cfg.SkipVanillaCheck {
		if _, err := c1.Validate(); err != nil {
			return "", newError(CodeInvalidInput, info.RustName, err, "C1 output")
		}
	} else if _, err := VerifyC1(c1, &req.Sector); err != nil {
		return "", newError(CodeInvalidInput, info.RustName, err, "C1 output of sector %d", req.Sector.Number)
	}
	circuits := make([]prover.Circuit, len(c1.VanillaProofs))
	for k := range circuits {
		c, err := porep.FromC1(c1, k)
		if err != nil {
			return "", newError(CodeInvalidInput, info.RustName, err, "partition %d", k)
		}
		circuits[k] = c
	}
	want := info.ProofLen
	assemble := func(res pipeline.Result) (*JobResult, error) {
		if err := s.verifyIndependently(prover.CircuitID(info.CircuitID), info.RustName, res.Proofs, sealInputs(info, c1)); err != nil {
			return nil, err
		}
		b := res.Bytes()
		if len(b) != want {
			return nil, newError(CodeInternal, info.RustName, nil, "proof of %d bytes, want %d", len(b), want)
		}
		return &JobResult{Proof: b}, nil
	}
	return s.submit(ctx, place, JobSealCommit2, info.RustName, sealSector(req.Sector), req.Key, s.cfg.SealPriority, circuits, assemble)
}

// SubmitWinningPoSt validates Winning PoSt vanilla proofs and queues the proof.
func (s *Service) SubmitWinningPoSt(ctx context.Context, req *PoStRequest) (JobID, error) {
	return s.submitPoSt(ctx, req, types.PoStWinning)
}

// SubmitWindowPoSt validates one Window PoSt partition's vanilla proofs and queues the proof.
func (s *Service) SubmitWindowPoSt(ctx context.Context, req *PoStRequest) (JobID, error) {
	return s.submitPoSt(ctx, req, types.PoStWindow)
}

func (s *Service) submitPoSt(ctx context.Context, req *PoStRequest, kind types.PoStKind) (JobID, error) {
	id, err := s.submitPoStJob(ctx, req, kind)
	jobKind, sector := JobWinningPoSt, ""
	if kind == types.PoStWindow {
		jobKind = JobWindowPoSt
	}
	if req != nil {
		sector = fmt.Sprintf("miner %d, %d sectors", req.Miner, max(len(req.VanillaProofs), len(req.Decoded)))
	}
	s.jobs.logSubmitted(id, jobKind, sector, err)
	return id, err
}

func (s *Service) submitPoStJob(ctx context.Context, req *PoStRequest, kind types.PoStKind) (JobID, error) {
	if req == nil {
		return "", newError(CodeInvalidInput, "", nil, "no request")
	}
	info, err := types.PoStProof(req.ProofType)
	if err != nil {
		return "", newError(CodeInvalidInput, "", err, "registered PoSt proof")
	}
	if info.Kind != kind {
		return "", newError(CodeInvalidInput, info.RustName, nil, "is a %s PoSt proof type, this call proves %s PoSt", info.Kind, kind)
	}
	if !info.Provable {
		return "", unsupported(info.RustName, "not provable by snarkpipe")
	}
	place, err := s.admit(info.RustName, info.SectorSize, prover.CircuitID(info.CircuitID))
	if err != nil {
		return "", err
	}
	defer place.release()
	if len(req.Randomness) != 32 {
		return "", newError(CodeInvalidInput, info.RustName, nil, "randomness of %d bytes, want 32", len(req.Randomness))
	}
	if kind == types.PoStWinning && req.Partition != 0 {
		return "", newError(CodeInvalidInput, info.RustName, nil, "Winning PoSt has no partition %d", req.Partition)
	}
	if req.Partition < 0 {
		return "", newError(CodeInvalidInput, info.RustName, nil, "partition %d", req.Partition)
	}
	proofs, err := decodePoStVanilla(info, req)
	if err != nil {
		return "", err
	}
	pub := &PoStPublic{Proof: info, Randomness: req.Randomness, Sectors: PoStSectorsFromProofs(proofs), Partition: req.Partition}
	if !s.cfg.SkipVanillaCheck {
		if err := VerifyPoSt(pub, proofs); err != nil {
			return "", newError(CodeInvalidInput, info.RustName, err, "vanilla proofs")
		}
	}
	c, err := post.FromVanilla(info, proofs, 0)
	if err != nil {
		return "", newError(CodeInvalidInput, info.RustName, err, "vanilla proofs")
	}
	jobKind, prio := JobWinningPoSt, s.cfg.WinningPriority
	if kind == types.PoStWindow {
		jobKind, prio = JobWindowPoSt, s.cfg.WindowPriority
	}
	id := req.ProofType
	inputs := postInputs(info, req.Randomness, req.Partition, proofs)
	assemble := func(res pipeline.Result) (*JobResult, error) {
		if err := s.verifyIndependently(prover.CircuitID(info.CircuitID), info.RustName, res.Proofs, inputs); err != nil {
			return nil, err
		}
		return &JobResult{PoSt: &PoStResponse{Proofs: []proof.PoStProof{{PoStProof: id, ProofBytes: res.Bytes()}}, Skipped: []abi.SectorID{}}}, nil
	}
	return s.submit(ctx, place, jobKind, info.RustName, postSectors(req.Miner, pub.Sectors), req.Key, prio, []prover.Circuit{c}, assemble)
}

// decodePoStVanilla decodes (or takes) the vanilla proofs and checks their count.
func decodePoStVanilla(info *types.PoStProofInfo, req *PoStRequest) ([]*vanilla.FallbackPoStSectorProof, error) {
	proofs := req.Decoded
	if proofs == nil {
		n := len(req.VanillaProofs)
		if n == 0 || n > info.SectorsPerPartition {
			return nil, newError(CodeInvalidInput, info.RustName, nil, "%d vanilla proofs, want 1..%d", n, info.SectorsPerPartition)
		}
		proofs = make([]*vanilla.FallbackPoStSectorProof, n)
		for i, b := range req.VanillaProofs {
			p, err := vanilla.DecodePoStSectorProofFor(info, b)
			if err != nil {
				return nil, newError(CodeInvalidInput, info.RustName, err, "vanilla proof %d", i)
			}
			proofs[i] = p
		}
	}
	if n := len(proofs); n == 0 || n > info.SectorsPerPartition {
		return nil, newError(CodeInvalidInput, info.RustName, nil, "%d vanilla proofs, want 1..%d", n, info.SectorsPerPartition)
	}
	for i, p := range proofs {
		if p == nil {
			return nil, newError(CodeInvalidInput, info.RustName, nil, "vanilla proof %d is missing", i)
		}
	}
	return proofs, nil
}

// admit applies the backend policy and parameter availability before any decoding work,
// and reserves the request's place under max_jobs (the caller releases it when it returns;
// submit turns it into the job's).
func (s *Service) admit(proofType string, sectorSize uint64, id prover.CircuitID) (*reservation, error) {
	if sectorSize >= largeSectorSize && !s.deps.GPU && !s.cfg.AllowLargeOnCPU {
		return nil, unsupported(proofType, "32/64 GiB proofs need a GPU backend (a CPU proof takes hours and ~50 GiB); set allow_large_on_cpu to accept them")
	}
	if s.deps.Servable != nil {
		if err := s.deps.Servable(id); err != nil {
			return nil, newError(CodeUnavailable, proofType, err, "parameters for %s", id)
		}
	}
	return s.jobs.reserve()
}

// submit hands the circuits to the prover and registers the job.
func (s *Service) submit(ctx context.Context, place *reservation, kind JobKind, proofType, sector, key, priority string, circuits []prover.Circuit, assemble func(pipeline.Result) (*JobResult, error)) (JobID, error) {
	prio, err := parsePriority(priority)
	if err != nil {
		return "", newError(CodeInternal, proofType, err, "priority")
	}
	if id, ok := s.jobs.byKey(key); ok {
		return id, nil
	}
	// The pipeline job outlives the request: its context is the service's, not ctx.
	pj, err := s.deps.Prover.Submit(context.WithoutCancel(ctx), pipeline.JobSpec{Key: key, Kind: string(kind), Priority: prio, Circuits: circuits})
	if err != nil {
		e := classifyJobError(proofType, err)
		if errors.Is(err, pipeline.ErrClosed) {
			e.Code = CodeUnavailable
		}
		return "", e
	}
	j := &job{pj: pj, assemble: assemble, info: JobInfo{
		Kind: kind, ProofType: proofType, Sector: sector, Priority: prio.String(), Partitions: len(circuits), Submitted: timeNow(),
	}}
	return s.jobs.add(j, key, place), nil
}

// Await waits for a job and returns its result; a failed job returns its error (an *Error),
// a job still running when ctx ends returns a cancelled error and keeps running.
func (s *Service) Await(ctx context.Context, id JobID) (*JobResult, error) {
	return s.jobs.await(ctx, id)
}

// Job returns a job's current info.
func (s *Service) Job(ctx context.Context, id JobID) (*JobInfo, error) { return s.jobs.info(id) }

// Cancel stops a job: queued partitions are dropped, running ones finish and are discarded.
// Cancelling a finished job is not an error.
func (s *Service) Cancel(ctx context.Context, id JobID) error { return s.jobs.cancel(id) }

// Close stops admitting jobs and waits for the jobs in flight until ctx ends; jobs still
// running then are cancelled. It returns an error wrapping ctx's if it had to cancel.
func (s *Service) Close(ctx context.Context) error { return s.jobs.drain(ctx) }

// circuitOf returns a blank circuit of a registered proof, for Preload.
func circuitOf(ref ProofTypeRef) (prover.Circuit, string, uint64, error) {
	switch {
	case ref.Update != nil:
		return updateCircuitOf(ref)
	case ref.Seal != nil && ref.PoSt == nil:
		info, err := types.SealProof(*ref.Seal)
		if err != nil {
			return nil, "", 0, newError(CodeInvalidInput, "", err, "registered seal proof")
		}
		if !info.Provable {
			return nil, "", 0, unsupported(info.RustName, "NI-PoRep C2 is not produced by snarkpipe")
		}
		c, err := porep.Blank(porep.ConfigFor(info))
		if err != nil {
			return nil, "", 0, newError(CodeInternal, info.RustName, err, "blank circuit")
		}
		return c, info.RustName, info.SectorSize, nil
	case ref.PoSt != nil && ref.Seal == nil:
		info, err := types.PoStProof(*ref.PoSt)
		if err != nil {
			return nil, "", 0, newError(CodeInvalidInput, "", err, "registered PoSt proof")
		}
		c, err := post.Blank(post.ConfigFor(info))
		if err != nil {
			return nil, "", 0, newError(CodeInternal, info.RustName, err, "blank circuit")
		}
		return c, info.RustName, info.SectorSize, nil
	}
	return nil, "", 0, newError(CodeInvalidInput, "", nil, "name exactly one of a seal, a PoSt or an update proof type")
}

// Preload makes a proof type's parameters resident without proving.
func (s *Service) Preload(ctx context.Context, ref ProofTypeRef) (*PreloadResult, error) {
	c, name, size, err := circuitOf(ref)
	if err != nil {
		return nil, err
	}
	if size >= largeSectorSize && !s.deps.GPU && !s.cfg.AllowLargeOnCPU {
		return nil, unsupported(name, "32/64 GiB proofs need a GPU backend")
	}
	// Missing parameter files are refused before the pipeline records the circuit (tens of
	// seconds for the large ones) only to find nothing to load.
	if s.deps.Servable != nil {
		if err := s.deps.Servable(c.ID()); err != nil {
			return nil, newError(CodeUnavailable, name, err, "parameters for %s", c.ID())
		}
	}
	li, err := s.deps.Prover.Preload(ctx, c)
	if err != nil {
		return nil, classifyJobError(name, err)
	}
	// The load time: reading and decoding the file, the longest of the devices' uploads
	// (they run at once) and the working-set slots.
	var keys time.Duration
	for _, d := range li.KeyLoads {
		keys = max(keys, d)
	}
	took := li.HostLoad + keys + li.SlotTime
	return &PreloadResult{CircuitID: string(c.ID()), Provenance: s.provenance(c.ID()), Took: took, Resident: !li.AlreadyResident}, nil
}

// Evict drops a proof type's parameters from memory; it reports whether they were resident.
func (s *Service) Evict(ctx context.Context, ref ProofTypeRef) (bool, error) {
	id, name, err := circuitIDOf(ref)
	if err != nil {
		return false, err
	}
	ok, err := s.deps.Prover.Evict(id)
	if errors.Is(err, pipeline.ErrInUse) {
		return false, newError(CodeUnavailable, name, err, "circuit %s is proving", id)
	}
	if err != nil {
		return false, newError(CodeInternal, name, err, "evict %s", id)
	}
	return ok, nil
}

func circuitIDOf(ref ProofTypeRef) (prover.CircuitID, string, error) {
	switch {
	case ref.Update != nil:
		info, err := updateRefInfo(ref)
		if err != nil {
			return "", "", err
		}
		return prover.CircuitID(info.CircuitID), info.RustName, nil
	case ref.Seal != nil && ref.PoSt == nil:
		info, err := types.SealProof(*ref.Seal)
		if err != nil {
			return "", "", newError(CodeInvalidInput, "", err, "registered seal proof")
		}
		return prover.CircuitID(info.CircuitID), info.RustName, nil
	case ref.PoSt != nil && ref.Seal == nil:
		info, err := types.PoStProof(*ref.PoSt)
		if err != nil {
			return "", "", newError(CodeInvalidInput, "", err, "registered PoSt proof")
		}
		return prover.CircuitID(info.CircuitID), info.RustName, nil
	}
	return "", "", newError(CodeInvalidInput, "", nil, "name exactly one of a seal, a PoSt or an update proof type")
}

func (s *Service) provenance(id prover.CircuitID) string {
	if s.deps.Provenance == nil {
		return ""
	}
	return s.deps.Provenance(id)
}
