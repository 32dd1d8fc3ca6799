package sealer

import (
	"context"
	"errors"
	"fmt"

	"github.com/snarkpipe/snarkpipe/prover"
	"github.com/snarkpipe/snarkpipe/prover/pipeline"
)

// Prover is what the Service needs from the proving engine; *pipeline.Pipeline implements
// it. Proofs it returns have been verified against the verifying key of their circuit.
type Prover interface {
	Submit(ctx context.Context, spec pipeline.JobSpec) (*pipeline.Job, error)
	Preload(ctx context.Context, c prover.Circuit) (pipeline.LoadInfo, error)
	Evict(id prover.CircuitID) (bool, error)
	Status() pipeline.Status
}

// Deps are the Service's collaborators.
type Deps struct {
	Prover Prover
	// Backend describes where proofs run ("cpu", "gpu"); GPU says whether a GPU backend is
	// in use (without one, 32/64 GiB proof types are refused unless allowed).
	Backend string
	GPU     bool
	Devices []string
	// DevParams says the parameters are dev (untrusted setup) ones: proofs are for tests only.
	DevParams bool
	// Provenance names where a circuit's parameters come from, for Status (nil: unknown).
	Provenance func(id prover.CircuitID) string
	// Servable says whether parameters exist for a circuit id (nil: assume they do). A
	// proof type whose parameters are missing is refused as unavailable before proving.
	Servable func(id prover.CircuitID) error
}

// Service is the Filecoin proving service: decode, verify natively, build partition
// circuits, prove through the pipeline, assemble and return proofs. Safe for concurrent use.
type Service struct {
	cfg  Config
	deps Deps
	jobs *jobTable
}

// New builds a Service. deps.Prover is required.
func New(cfg Config, deps Deps) (*Service, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if deps.Prover == nil {
		return nil, errors.New("sealer: Deps.Prover is required")
	}
	return &Service{cfg: cfg, deps: deps, jobs: newJobTable(cfg)}, nil
}

// SealCommit2 proves a C1 output and waits for the proof (SubmitSealCommit2 + Await).
func (s *Service) SealCommit2(ctx context.Context, req *SealCommit2Request) (*SealCommit2Response, error) {
	id, err := s.SubmitSealCommit2(ctx, req)
	if err != nil {
		return nil, err
	}
	res, err := s.await(ctx, id)
	if err != nil {
		return nil, err
	}
	return &SealCommit2Response{Proof: res.Proof, Job: res.Info}, nil
}

// GenerateWinningPoSt proves a Winning PoSt from its vanilla proof and waits.
func (s *Service) GenerateWinningPoSt(ctx context.Context, req *PoStRequest) (*PoStResponse, error) {
	id, err := s.SubmitWinningPoSt(ctx, req)
	if err != nil {
		return nil, err
	}
	return s.awaitPoSt(ctx, id)
}

// GenerateWindowPoSt proves one Window PoSt partition from its vanilla proofs and waits.
func (s *Service) GenerateWindowPoSt(ctx context.Context, req *PoStRequest) (*PoStResponse, error) {
	id, err := s.SubmitWindowPoSt(ctx, req)
	if err != nil {
		return nil, err
	}
	return s.awaitPoSt(ctx, id)
}

func (s *Service) awaitPoSt(ctx context.Context, id JobID) (*PoStResponse, error) {
	res, err := s.await(ctx, id)
	if err != nil {
		return nil, err
	}
	if res.PoSt == nil {
		return nil, newError(CodeInternal, res.Info.ProofType, nil, "job %s finished without PoSt proofs", id)
	}
	out := *res.PoSt
	out.Job = res.Info
	return &out, nil
}

// await waits for a job and turns its failure into the job's error.
func (s *Service) await(ctx context.Context, id JobID) (*JobResult, error) {
	return s.Await(ctx, id)
}

// SubmitSealCommit2 validates a C1 output (decode, native verification) and queues its
// proof; it returns when the job is admitted. Bad input fails here, before any proving.
func (s *Service) SubmitSealCommit2(ctx context.Context, req *SealCommit2Request) (JobID, error) {
	return "", unsupported("", "not wired yet")
}

// SubmitWinningPoSt validates Winning PoSt vanilla proofs and queues the proof.
func (s *Service) SubmitWinningPoSt(ctx context.Context, req *PoStRequest) (JobID, error) {
	return "", unsupported("", "not wired yet")
}

// SubmitWindowPoSt validates one Window PoSt partition's vanilla proofs and queues the proof.
func (s *Service) SubmitWindowPoSt(ctx context.Context, req *PoStRequest) (JobID, error) {
	return "", unsupported("", "not wired yet")
}

// Await waits for a job and returns its result; a failed job returns its error (an *Error),
// a job still running when ctx ends returns ctx's error and keeps running.
func (s *Service) Await(ctx context.Context, id JobID) (*JobResult, error) {
	return nil, newError(CodeNotFound, "", nil, "job %q", id)
}

// Job returns a job's current info.
func (s *Service) Job(ctx context.Context, id JobID) (*JobInfo, error) {
	return nil, newError(CodeNotFound, "", nil, "job %q", id)
}

// Cancel stops a job: queued partitions are dropped, running ones finish and are discarded.
// Cancelling a finished job is not an error.
func (s *Service) Cancel(ctx context.Context, id JobID) error {
	return newError(CodeNotFound, "", nil, "job %q", id)
}

// Preload makes a proof type's parameters resident without proving.
func (s *Service) Preload(ctx context.Context, ref ProofTypeRef) (*PreloadResult, error) {
	return nil, unsupported("", "not wired yet")
}

// Evict drops a proof type's parameters from memory; it reports whether they were resident.
func (s *Service) Evict(ctx context.Context, ref ProofTypeRef) (bool, error) {
	return false, unsupported("", "not wired yet")
}

// Status describes the service: backend, servable proof types, queues, resident
// parameters with provenance and recent jobs with stage timings.
func (s *Service) Status(ctx context.Context) (*Status, error) {
	return &Status{Backend: s.deps.Backend, Devices: s.deps.Devices, DevParams: s.deps.DevParams}, nil
}

// Close stops admitting jobs and waits for the jobs in flight until ctx ends; jobs still
// running then are cancelled. It returns ctx's error if it had to cancel.
func (s *Service) Close(ctx context.Context) error {
	return nil
}

// jobTable is filled in with the job registry.
type jobTable struct{}

func newJobTable(Config) *jobTable { return &jobTable{} }

func parsePriority(s string) (pipeline.Priority, error) {
	for p := pipeline.Low; p <= pipeline.Critical; p++ {
		if p.String() == s {
			return p, nil
		}
	}
	return 0, fmt.Errorf("unknown priority %q (want low, normal, high or critical)", s)
}
