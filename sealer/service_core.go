package sealer

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/snarkpipe/snarkpipe/prover"
	"github.com/snarkpipe/snarkpipe/prover/groth16"
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
	// VerifyingKey, when set, gives the verifying key of a circuit id (the official .vk):
	// every proof is then also verified against public inputs derived from the request
	// alone, as the chain verifies it. nil: the pipeline's verification only.
	VerifyingKey func(id prover.CircuitID) (*groth16.VerifyingKey, error)
	// Log gets one line per job: admitted, refused (bad input, unavailable), done, failed
	// or cancelled, with its id, sector, proof type and time. Every front door (native
	// API, Curio, lotus worker) goes through the Service, so each job is logged once,
	// whichever way it came. nil: no job log.
	Log *slog.Logger
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
	jobs := newJobTable(cfg)
	if deps.Log != nil {
		jobs.log = deps.Log
	}
	return &Service{cfg: cfg, deps: deps, jobs: jobs}, nil
}

// SealCommit2 proves a C1 output and waits for the proof (SubmitSealCommit2 + Await).
func (s *Service) SealCommit2(ctx context.Context, req *SealCommit2Request) (*SealCommit2Response, error) {
	id, err := s.SubmitSealCommit2(ctx, req)
	if err != nil {
		return nil, err
	}
	res, err := s.Await(ctx, id)
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
	res, err := s.Await(ctx, id)
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

func parsePriority(s string) (pipeline.Priority, error) {
	for p := pipeline.Low; p <= pipeline.Critical; p++ {
		if p.String() == s {
			return p, nil
		}
	}
	return 0, fmt.Errorf("unknown priority %q (want low, normal, high or critical)", s)
}

// ProveReplicaUpdate2 proves a SnapDeals sector update from its vanilla partition proofs
// and waits (SubmitReplicaUpdate2 + Await).
func (s *Service) ProveReplicaUpdate2(ctx context.Context, req *ReplicaUpdateRequest) (*ReplicaUpdateResponse, error) {
	id, err := s.SubmitReplicaUpdate2(ctx, req)
	if err != nil {
		return nil, err
	}
	res, err := s.Await(ctx, id)
	if err != nil {
		return nil, err
	}
	return &ReplicaUpdateResponse{Proof: res.Proof, Job: res.Info}, nil
}
