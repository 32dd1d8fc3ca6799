package remotec2

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/filecoin-project/go-state-types/abi"

	"github.com/snarkpipe/snarkpipe/sealer"
)

// Path is where the daemon mounts the handler; the endpoint URL given to lotus is
// http://<host:port>/remote/commit2?token=<jwt>.
const Path = "/remote/commit2"

// PermWrite is the permission a token must grant.
const PermWrite = "write"

// Prover is what the endpoint needs from the proving service; *sealer.Service
// implements it.
type Prover interface {
	SealCommit2(ctx context.Context, req *sealer.SealCommit2Request) (*sealer.SealCommit2Response, error)
}

var _ Prover = (*sealer.Service)(nil)

// Verify checks a token and returns the permissions it grants (the native API's check,
// e.g. rpc.VerifyToken with the daemon's secret, permissions as strings).
type Verify func(token string) ([]string, error)

// Config bounds requests.
type Config struct {
	// MaxBodyBytes bounds the JSON body: a 32 GiB C1 output is ~51 MB, ~68 MB as base64.
	MaxBodyBytes int64 `toml:"max_body_bytes"`
}

// DefaultConfig leaves room for a 64 GiB C1 output (~55 MB, ~73 MB as base64).
func DefaultConfig() Config { return Config{MaxBodyBytes: 192 << 20} }

// Validate checks the configuration.
func (c Config) Validate() error {
	if c.MaxBodyBytes < 1<<20 {
		return fmt.Errorf("remotec2: max_body_bytes %d is below 1 MiB", c.MaxBodyBytes)
	}
	return nil
}

// Params is lotus's api.RemoteCommit2Params as it goes on the wire.
type Params struct {
	Sector     abi.SectorID
	ProofType  abi.RegisteredSealProof
	Commit1Out []byte
}

// Handler answers remote Commit2 requests.
type Handler struct {
	cfg    Config
	svc    Prover
	verify Verify
}

// New builds the handler. verify is required: the endpoint proves for anyone who can
// reach it otherwise.
func New(cfg Config, svc Prover, verify Verify) (*Handler, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if svc == nil || verify == nil {
		return nil, errors.New("remotec2: a Prover and a token Verify are required")
	}
	return &Handler{cfg: cfg, svc: svc, verify: verify}, nil
}

func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		fail(w, http.StatusMethodNotAllowed, "remotec2: POST RemoteCommit2Params JSON")
		return
	}
	if status, msg := h.authorize(r); status != 0 {
		fail(w, status, msg)
		return
	}
	p, status, err := readParams(w, r, h.cfg.MaxBodyBytes)
	if err != nil {
		fail(w, status, err.Error())
		return
	}
	resp, err := h.svc.SealCommit2(r.Context(), &sealer.SealCommit2Request{
		Sector:    p.Sector,
		ProofType: p.ProofType,
		C1:        p.Commit1Out,
		Key:       idempotencyKey(p),
	})
	if err != nil {
		serviceError(w, err)
		return
	}
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Header().Set("Content-Length", strconv.Itoa(len(resp.Proof)))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(resp.Proof)
}

// authorize reads the token from the Authorization header or ?token= and requires write.
func (h *Handler) authorize(r *http.Request) (int, string) {
	token, hasHeader := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !hasHeader {
		if r.Header.Get("Authorization") != "" {
			return http.StatusUnauthorized, "remotec2: authorization header is not \"Bearer <token>\""
		}
		token = r.URL.Query().Get("token")
	}
	if token == "" {
		return http.StatusUnauthorized, "remotec2: no token (put ?token=<jwt> in the endpoint URL)"
	}
	perms, err := h.verify(token)
	if err != nil {
		return http.StatusUnauthorized, "remotec2: invalid token: " + err.Error()
	}
	if !slices.Contains(perms, PermWrite) {
		return http.StatusForbidden, "remotec2: token lacks the write permission"
	}
	return 0, ""
}

// readParams decodes the body. Unknown fields are tolerated (a newer lotus may add
// some); the three known ones must be present.
func readParams(w http.ResponseWriter, r *http.Request, limit int64) (*Params, int, error) {
	if r.ContentLength > limit {
		return nil, http.StatusRequestEntityTooLarge, fmt.Errorf("remotec2: body of %d bytes exceeds max_body_bytes %d", r.ContentLength, limit)
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		return nil, http.StatusRequestEntityTooLarge, fmt.Errorf("remotec2: body exceeds max_body_bytes %d", limit)
	}
	if err != nil {
		return nil, http.StatusBadRequest, fmt.Errorf("remotec2: reading body: %v", err)
	}
	p, err := DecodeParams(body)
	if err != nil {
		return nil, http.StatusBadRequest, err
	}
	return p, 0, nil
}

// DecodeParams decodes RemoteCommit2Params JSON, requiring Sector, ProofType and a
// non-empty Commit1Out and nothing after the object.
func DecodeParams(body []byte) (*Params, error) {
	var raw struct {
		Sector *struct {
			Miner  *abi.ActorID
			Number *abi.SectorNumber
		}
		ProofType  *abi.RegisteredSealProof
		Commit1Out []byte
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(&raw); err != nil {
		return nil, fmt.Errorf("remotec2: body is not RemoteCommit2Params JSON: %v", err)
	}
	if dec.More() {
		return nil, errors.New("remotec2: trailing data after RemoteCommit2Params")
	}
	switch {
	case raw.Sector == nil || raw.Sector.Miner == nil || raw.Sector.Number == nil:
		return nil, errors.New("remotec2: Sector {Miner, Number} missing")
	case raw.ProofType == nil:
		return nil, errors.New("remotec2: ProofType missing")
	case len(raw.Commit1Out) == 0:
		return nil, errors.New("remotec2: Commit1Out missing or empty")
	}
	return &Params{
		Sector:     abi.SectorID{Miner: *raw.Sector.Miner, Number: *raw.Sector.Number},
		ProofType:  *raw.ProofType,
		Commit1Out: raw.Commit1Out,
	}, nil
}

// idempotencyKey names a request for the service: lotus retries a failed commit step
// with the same body, and a retry after a dropped connection then joins the running job
// instead of proving twice. The digest of proof type and C1 output keeps a sector whose
// C1 changed (a new seed) from being answered with the old proof.
func idempotencyKey(p *Params) string {
	h := sha256.New()
	var n [8]byte
	binary.LittleEndian.PutUint64(n[:], uint64(p.ProofType))
	h.Write(n[:])
	h.Write(p.Commit1Out)
	return fmt.Sprintf("remotec2-%d-%d#%s", p.Sector.Miner, p.Sector.Number, hex.EncodeToString(h.Sum(nil)[:12]))
}

// httpStatus maps the service's error codes: bad input and unsupported proof types are
// the caller's problem (4xx: retrying the same request cannot help), unavailable is
// worth a retry later (503), the rest is ours (500).
var httpStatus = map[sealer.Code]int{
	sealer.CodeInvalidInput: http.StatusBadRequest,
	sealer.CodeUnsupported:  http.StatusUnprocessableEntity,
	sealer.CodeUnavailable:  http.StatusServiceUnavailable,
	sealer.CodeCancelled:    http.StatusServiceUnavailable,
	sealer.CodeNotFound:     http.StatusInternalServerError,
	sealer.CodeInternal:     http.StatusInternalServerError,
}

func serviceError(w http.ResponseWriter, err error) {
	status, ok := httpStatus[sealer.CodeOf(err)]
	if !ok {
		status = http.StatusInternalServerError
	}
	if status == http.StatusServiceUnavailable {
		w.Header().Set("Retry-After", "60")
	}
	fail(w, status, err.Error())
}

func fail(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	_, _ = io.WriteString(w, msg+"\n")
}
