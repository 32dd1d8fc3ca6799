package api

import "context"

// Namespace prefixes every method name ("SnarkPipe.SealCommit2").
const Namespace = "SnarkPipe"

// Endpoint is the HTTP path of the JSON-RPC endpoint (POST or WebSocket upgrade).
const Endpoint = "/rpc/v0"

// Version is the API version reported by Version.
const Version = "0.1.0"

// Permissions, as lotus names them.
const (
	PermRead  = "read"
	PermWrite = "write"
	PermAdmin = "admin"
)

// AllPermissions lists the permissions a token may carry, weakest first.
var AllPermissions = []string{PermRead, PermWrite, PermAdmin}

// SnarkPipe is the native API. The comment after each method is its permission.
type SnarkPipe interface {
	// SealCommit2 proves a C1 output and returns the proof (waits for it).
	SealCommit2(ctx context.Context, req SealCommit2Request) (*SealCommit2Result, error) // perm:write
	// SubmitSealCommit2 validates and queues a C2; AwaitJob returns its result.
	SubmitSealCommit2(ctx context.Context, req SealCommit2Request) (JobID, error) // perm:write
	// GenerateWinningPoStWithVanilla proves a Winning PoSt (waits for it).
	GenerateWinningPoStWithVanilla(ctx context.Context, req PoStRequest) (*PoStResult, error) // perm:write
	// GenerateWindowPoStWithVanilla proves one Window PoSt partition (waits for it).
	GenerateWindowPoStWithVanilla(ctx context.Context, req PoStRequest) (*PoStResult, error) // perm:write
	// SubmitWinningPoSt and SubmitWindowPoSt queue PoSt jobs.
	SubmitWinningPoSt(ctx context.Context, req PoStRequest) (JobID, error) // perm:write
	SubmitWindowPoSt(ctx context.Context, req PoStRequest) (JobID, error)  // perm:write
	// AwaitJob waits for a job's result.
	AwaitJob(ctx context.Context, id JobID) (*JobResult, error) // perm:write
	// Job returns a job's state.
	Job(ctx context.Context, id JobID) (*JobInfo, error) // perm:read
	// Cancel stops a job.
	Cancel(ctx context.Context, id JobID) error // perm:write
	// Status describes queues, devices, resident parameters and recent jobs.
	Status(ctx context.Context) (*Status, error) // perm:read
	// Preload makes a proof type's parameters resident; Evict drops them.
	Preload(ctx context.Context, ref ProofTypeRef) (*PreloadResult, error) // perm:admin
	Evict(ctx context.Context, ref ProofTypeRef) (bool, error)             // perm:admin
	// ProveReplicaUpdate2 proves a SnapDeals update (one proof per partition).
	ProveReplicaUpdate2(ctx context.Context, req ReplicaUpdateRequest) (*ReplicaUpdateResult, error) // perm:write
	// Version returns the API version.
	Version(ctx context.Context) (string, error) // perm:read
}

// SnarkPipeStruct is the go-jsonrpc shape of SnarkPipe: the client fills Internal, the
// server wraps an implementation into it with permission checks (go-jsonrpc registers
// methods, not func fields, hence the forwarding methods).
type SnarkPipeStruct struct {
	Internal struct {
		SealCommit2                    func(ctx context.Context, req SealCommit2Request) (*SealCommit2Result, error)     `perm:"write"`
		SubmitSealCommit2              func(ctx context.Context, req SealCommit2Request) (JobID, error)                  `perm:"write"`
		GenerateWinningPoStWithVanilla func(ctx context.Context, req PoStRequest) (*PoStResult, error)                   `perm:"write"`
		GenerateWindowPoStWithVanilla  func(ctx context.Context, req PoStRequest) (*PoStResult, error)                   `perm:"write"`
		SubmitWinningPoSt              func(ctx context.Context, req PoStRequest) (JobID, error)                         `perm:"write"`
		SubmitWindowPoSt               func(ctx context.Context, req PoStRequest) (JobID, error)                         `perm:"write"`
		AwaitJob                       func(ctx context.Context, id JobID) (*JobResult, error)                           `perm:"write"`
		Job                            func(ctx context.Context, id JobID) (*JobInfo, error)                             `perm:"read"`
		Cancel                         func(ctx context.Context, id JobID) error                                         `perm:"write"`
		Status                         func(ctx context.Context) (*Status, error)                                        `perm:"read"`
		Preload                        func(ctx context.Context, ref ProofTypeRef) (*PreloadResult, error)               `perm:"admin"`
		Evict                          func(ctx context.Context, ref ProofTypeRef) (bool, error)                         `perm:"admin"`
		ProveReplicaUpdate2            func(ctx context.Context, req ReplicaUpdateRequest) (*ReplicaUpdateResult, error) `perm:"write"`
		Version                        func(ctx context.Context) (string, error)                                         `perm:"read"`
	}
}

var _ SnarkPipe = (*SnarkPipeStruct)(nil)

func (s *SnarkPipeStruct) SealCommit2(ctx context.Context, req SealCommit2Request) (*SealCommit2Result, error) {
	return s.Internal.SealCommit2(ctx, req)
}

func (s *SnarkPipeStruct) SubmitSealCommit2(ctx context.Context, req SealCommit2Request) (JobID, error) {
	return s.Internal.SubmitSealCommit2(ctx, req)
}

func (s *SnarkPipeStruct) GenerateWinningPoStWithVanilla(ctx context.Context, req PoStRequest) (*PoStResult, error) {
	return s.Internal.GenerateWinningPoStWithVanilla(ctx, req)
}

func (s *SnarkPipeStruct) GenerateWindowPoStWithVanilla(ctx context.Context, req PoStRequest) (*PoStResult, error) {
	return s.Internal.GenerateWindowPoStWithVanilla(ctx, req)
}

func (s *SnarkPipeStruct) SubmitWinningPoSt(ctx context.Context, req PoStRequest) (JobID, error) {
	return s.Internal.SubmitWinningPoSt(ctx, req)
}

func (s *SnarkPipeStruct) SubmitWindowPoSt(ctx context.Context, req PoStRequest) (JobID, error) {
	return s.Internal.SubmitWindowPoSt(ctx, req)
}

func (s *SnarkPipeStruct) AwaitJob(ctx context.Context, id JobID) (*JobResult, error) {
	return s.Internal.AwaitJob(ctx, id)
}

func (s *SnarkPipeStruct) Job(ctx context.Context, id JobID) (*JobInfo, error) {
	return s.Internal.Job(ctx, id)
}

func (s *SnarkPipeStruct) Cancel(ctx context.Context, id JobID) error {
	return s.Internal.Cancel(ctx, id)
}

func (s *SnarkPipeStruct) Status(ctx context.Context) (*Status, error) {
	return s.Internal.Status(ctx)
}

func (s *SnarkPipeStruct) Preload(ctx context.Context, ref ProofTypeRef) (*PreloadResult, error) {
	return s.Internal.Preload(ctx, ref)
}

func (s *SnarkPipeStruct) Evict(ctx context.Context, ref ProofTypeRef) (bool, error) {
	return s.Internal.Evict(ctx, ref)
}

func (s *SnarkPipeStruct) Version(ctx context.Context) (string, error) {
	return s.Internal.Version(ctx)
}

func (s *SnarkPipeStruct) ProveReplicaUpdate2(ctx context.Context, req ReplicaUpdateRequest) (*ReplicaUpdateResult, error) {
	return s.Internal.ProveReplicaUpdate2(ctx, req)
}
