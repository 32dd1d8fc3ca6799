package cuzk

import (
	"context"

	"github.com/snarkpipe/snarkpipe/sealer"
)

// Prover is what the adapter needs from the proving service; *sealer.Service implements
// it, tests use a fake.
type Prover interface {
	SubmitSealCommit2(ctx context.Context, req *sealer.SealCommit2Request) (sealer.JobID, error)
	SubmitWinningPoSt(ctx context.Context, req *sealer.PoStRequest) (sealer.JobID, error)
	SubmitWindowPoSt(ctx context.Context, req *sealer.PoStRequest) (sealer.JobID, error)
	Await(ctx context.Context, id sealer.JobID) (*sealer.JobResult, error)
	Job(ctx context.Context, id sealer.JobID) (*sealer.JobInfo, error)
	Cancel(ctx context.Context, id sealer.JobID) error
	Status(ctx context.Context) (*sealer.Status, error)
	Preload(ctx context.Context, ref sealer.ProofTypeRef) (*sealer.PreloadResult, error)
	Evict(ctx context.Context, ref sealer.ProofTypeRef) (bool, error)
	SubmitReplicaUpdate2(ctx context.Context, req *sealer.ReplicaUpdateRequest) (sealer.JobID, error)
}

var _ Prover = (*sealer.Service)(nil)
