package rpc

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/filecoin-project/go-jsonrpc"

	"github.com/snarkpipe/snarkpipe/rpc/api"
	"github.com/snarkpipe/snarkpipe/sealer"
)

// Service is what the server needs from package sealer; *sealer.Service implements it.
type Service interface {
	SealCommit2(ctx context.Context, req *sealer.SealCommit2Request) (*sealer.SealCommit2Response, error)
	SubmitSealCommit2(ctx context.Context, req *sealer.SealCommit2Request) (sealer.JobID, error)
	GenerateWinningPoSt(ctx context.Context, req *sealer.PoStRequest) (*sealer.PoStResponse, error)
	GenerateWindowPoSt(ctx context.Context, req *sealer.PoStRequest) (*sealer.PoStResponse, error)
	SubmitWinningPoSt(ctx context.Context, req *sealer.PoStRequest) (sealer.JobID, error)
	SubmitWindowPoSt(ctx context.Context, req *sealer.PoStRequest) (sealer.JobID, error)
	Await(ctx context.Context, id sealer.JobID) (*sealer.JobResult, error)
	Job(ctx context.Context, id sealer.JobID) (*sealer.JobInfo, error)
	Cancel(ctx context.Context, id sealer.JobID) error
	Status(ctx context.Context) (*sealer.Status, error)
	Preload(ctx context.Context, ref sealer.ProofTypeRef) (*sealer.PreloadResult, error)
	Evict(ctx context.Context, ref sealer.ProofTypeRef) (bool, error)
	ProveReplicaUpdate2(ctx context.Context, req *sealer.ReplicaUpdateRequest) (*sealer.ReplicaUpdateResponse, error)
}

var _ Service = (*sealer.Service)(nil)

// NewHandler returns the HTTP handler of the native API: the JSON-RPC endpoint at
// api.Endpoint behind token authentication and the request size limit.
func NewHandler(cfg Config, svc Service, secret []byte) (http.Handler, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if len(secret) < 16 {
		return nil, errors.New("rpc: token secret shorter than 16 bytes")
	}
	var out api.SnarkPipeStruct
	permissioned(cfg.defaultPerms(), &handler{svc: svc}, &out)
	srv := jsonrpc.NewServer(jsonrpc.WithMaxRequestSize(cfg.MaxRequestBytes), jsonrpc.WithServerErrors(api.Errors()))
	srv.Register(api.Namespace, &out)
	mux := http.NewServeMux()
	mux.Handle(api.Endpoint, &limitHandler{max: cfg.MaxRequestBytes, next: &authHandler{secret: secret, next: srv}})
	return mux, nil
}

// limitHandler refuses a body whose declared length is over the limit with HTTP 413 and
// a CodeTooLarge error, before reading it. Bodies without a declared length are cut by
// go-jsonrpc at the same limit (-32700 "request bigger than maximum").
type limitHandler struct {
	max  int64
	next http.Handler
}

func (h *limitHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.ContentLength > h.max {
		writeError(w, http.StatusRequestEntityTooLarge, api.Errorf(api.CodeTooLarge,
			"request body of %d bytes exceeds the limit of %d bytes (rpc max_request_bytes)", r.ContentLength, h.max))
		return
	}
	h.next.ServeHTTP(w, r)
}

// apiError turns a service error into an API error with its documented code.
func apiError(err error) error {
	if err == nil {
		return nil
	}
	var se *sealer.Error
	if !errors.As(err, &se) {
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return &api.Error{Code: api.CodeCancelled, Message: err.Error()}
		}
		return &api.Error{Code: api.CodeInternal, Message: err.Error()}
	}
	codes := map[sealer.Code]api.Code{
		sealer.CodeInternal: api.CodeInternal, sealer.CodeInvalidInput: api.CodeInvalidInput,
		sealer.CodeUnsupported: api.CodeUnsupported, sealer.CodeNotFound: api.CodeNotFound,
		sealer.CodeUnavailable: api.CodeUnavailable, sealer.CodeCancelled: api.CodeCancelled,
	}
	code, ok := codes[se.Code]
	if !ok {
		code = api.CodeInternal
	}
	return &api.Error{Code: code, Message: se.Error(), Data: api.ErrorData{ProofType: se.ProofType}}
}

// handler implements api.SnarkPipe over a Service. Every error it returns is an *api.Error.
type handler struct{ svc Service }

func (h *handler) SealCommit2(ctx context.Context, req api.SealCommit2Request) (*api.SealCommit2Result, error) {
	r, err := h.svc.SealCommit2(ctx, sealRequest(req))
	if err != nil {
		return nil, apiError(err)
	}
	return &api.SealCommit2Result{Proof: r.Proof, Job: jobInfo(r.Job)}, nil
}

func (h *handler) SubmitSealCommit2(ctx context.Context, req api.SealCommit2Request) (api.JobID, error) {
	id, err := h.svc.SubmitSealCommit2(ctx, sealRequest(req))
	return api.JobID(id), apiError(err)
}

func (h *handler) GenerateWinningPoStWithVanilla(ctx context.Context, req api.PoStRequest) (*api.PoStResult, error) {
	r, err := h.svc.GenerateWinningPoSt(ctx, postRequest(req))
	if err != nil {
		return nil, apiError(err)
	}
	return postResult(r), nil
}

func (h *handler) GenerateWindowPoStWithVanilla(ctx context.Context, req api.PoStRequest) (*api.PoStResult, error) {
	r, err := h.svc.GenerateWindowPoSt(ctx, postRequest(req))
	if err != nil {
		return nil, apiError(err)
	}
	return postResult(r), nil
}

func (h *handler) SubmitWinningPoSt(ctx context.Context, req api.PoStRequest) (api.JobID, error) {
	id, err := h.svc.SubmitWinningPoSt(ctx, postRequest(req))
	return api.JobID(id), apiError(err)
}

func (h *handler) SubmitWindowPoSt(ctx context.Context, req api.PoStRequest) (api.JobID, error) {
	id, err := h.svc.SubmitWindowPoSt(ctx, postRequest(req))
	return api.JobID(id), apiError(err)
}

func (h *handler) AwaitJob(ctx context.Context, id api.JobID) (*api.JobResult, error) {
	r, err := h.svc.Await(ctx, sealer.JobID(id))
	if err != nil {
		return nil, apiError(err)
	}
	out := &api.JobResult{Info: jobInfo(r.Info), Proof: r.Proof}
	if r.PoSt != nil {
		out.PoSt = postResult(r.PoSt)
		out.PoSt.Job = out.Info
	}
	return out, nil
}

func (h *handler) Job(ctx context.Context, id api.JobID) (*api.JobInfo, error) {
	info, err := h.svc.Job(ctx, sealer.JobID(id))
	if err != nil {
		return nil, apiError(err)
	}
	out := jobInfo(*info)
	return &out, nil
}

func (h *handler) Cancel(ctx context.Context, id api.JobID) error {
	return apiError(h.svc.Cancel(ctx, sealer.JobID(id)))
}

func (h *handler) Status(ctx context.Context) (*api.Status, error) {
	st, err := h.svc.Status(ctx)
	if err != nil {
		return nil, apiError(err)
	}
	return status(st), nil
}

func (h *handler) Preload(ctx context.Context, ref api.ProofTypeRef) (*api.PreloadResult, error) {
	r, err := h.svc.Preload(ctx, sealer.ProofTypeRef{Seal: ref.Seal, PoSt: ref.PoSt, Update: ref.Update})
	if err != nil {
		return nil, apiError(err)
	}
	return &api.PreloadResult{CircuitID: r.CircuitID, Provenance: r.Provenance, Took: r.Took, Resident: r.Resident}, nil
}

func (h *handler) Evict(ctx context.Context, ref api.ProofTypeRef) (bool, error) {
	ok, err := h.svc.Evict(ctx, sealer.ProofTypeRef{Seal: ref.Seal, PoSt: ref.PoSt, Update: ref.Update})
	return ok, apiError(err)
}

func (h *handler) ProveReplicaUpdate2(ctx context.Context, req api.ReplicaUpdateRequest) (*api.ReplicaUpdateResult, error) {
	r, err := h.svc.ProveReplicaUpdate2(ctx, &sealer.ReplicaUpdateRequest{
		Sector: req.Sector, UpdateProofType: req.UpdateProofType, CommROld: req.CommROld, CommRNew: req.CommRNew,
		CommDNew: req.CommDNew, VanillaProofs: req.VanillaProofs, Key: req.Key,
	})
	if err != nil {
		return nil, apiError(err)
	}
	return &api.ReplicaUpdateResult{Proof: r.Proof, Job: jobInfo(r.Job)}, nil
}

func (h *handler) Version(context.Context) (string, error) { return api.Version, nil }

var _ api.SnarkPipe = (*handler)(nil)

// String names the handler in go-jsonrpc's logs.
func (h *handler) String() string { return fmt.Sprintf("snarkpipe api %s", api.Version) }
