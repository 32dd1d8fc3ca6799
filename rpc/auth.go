package rpc

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strings"

	"github.com/filecoin-project/go-jsonrpc/auth"
	"github.com/golang-jwt/jwt/v5"

	"github.com/snarkpipe/snarkpipe/rpc/api"
)

// SecretSize is the length of a generated token secret.
const SecretSize = 32

// claims is lotus' JWT payload: {"Allow": ["read", "write", ...]}.
type claims struct {
	Allow []string `json:"Allow"`
	jwt.RegisteredClaims
}

// NewToken signs an HS256 token granting perms. Granting a permission grants the weaker
// ones too (admin ⊃ write ⊃ read), as lotus' tokens list them all.
func NewToken(secret []byte, perm string) (string, error) {
	i := slices.Index(api.AllPermissions, perm)
	if i < 0 {
		return "", fmt.Errorf("rpc: unknown permission %q (want one of %s)", perm, strings.Join(api.AllPermissions, ", "))
	}
	if len(secret) < 16 {
		return "", errors.New("rpc: token secret shorter than 16 bytes")
	}
	c := claims{Allow: append([]string(nil), api.AllPermissions[:i+1]...)}
	return jwt.NewWithClaims(jwt.SigningMethodHS256, c).SignedString(secret)
}

// VerifyToken checks an HS256 token and returns the permissions it grants; unknown
// permission names are dropped.
func VerifyToken(secret []byte, token string) ([]auth.Permission, error) {
	var c claims
	_, err := jwt.ParseWithClaims(token, &c, func(*jwt.Token) (any, error) { return secret, nil },
		jwt.WithValidMethods([]string{jwt.SigningMethodHS256.Alg()}))
	if err != nil {
		return nil, err
	}
	var perms []auth.Permission
	for _, p := range c.Allow {
		if slices.Contains(api.AllPermissions, p) {
			perms = append(perms, auth.Permission(p))
		}
	}
	return perms, nil
}

// LoadOrCreateSecret reads the token secret at path, creating it (SecretSize random bytes,
// mode 0600) when it does not exist.
func LoadOrCreateSecret(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if err == nil {
		if len(b) < 16 {
			return nil, fmt.Errorf("rpc: token secret %s is %d bytes, want at least 16", path, len(b))
		}
		return b, nil
	}
	if !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	b = make([]byte, SecretSize)
	if _, err := rand.Read(b); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, os.ErrExist) {
		return LoadOrCreateSecret(path) // created concurrently
	}
	if err != nil {
		return nil, err
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return nil, err
	}
	return b, f.Close()
}

// authHandler verifies the bearer token (header or ?token=) and puts its permissions in
// the request context. A bad token gets HTTP 401 with a JSON-RPC error body; no token
// gets the default permissions (none unless configured).
type authHandler struct {
	secret []byte
	next   http.Handler
}

func (h *authHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	token := r.Header.Get("Authorization")
	if token == "" {
		if q := r.URL.Query().Get("token"); q != "" {
			token = "Bearer " + q
		}
	}
	if token == "" {
		h.next.ServeHTTP(w, r)
		return
	}
	rest, ok := strings.CutPrefix(token, "Bearer ")
	if !ok {
		writeError(w, http.StatusUnauthorized, api.Errorf(api.CodeUnauthorized, "authorization header is not \"Bearer <token>\""))
		return
	}
	perms, err := VerifyToken(h.secret, rest)
	if err != nil {
		writeError(w, http.StatusUnauthorized, api.Errorf(api.CodeUnauthorized, "invalid token: %v", err))
		return
	}
	h.next.ServeHTTP(w, r.WithContext(auth.WithPerm(r.Context(), perms)))
}

// writeError answers with a JSON-RPC error (id null) outside go-jsonrpc: bad tokens and
// oversized bodies are refused before the request is read.
func writeError(w http.ResponseWriter, status int, e *api.Error) {
	j, _ := e.ToJSONRPCError()
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": nil, "error": j})
}

// hasPerm reports whether the caller may invoke a method needing perm.
func hasPerm(ctx context.Context, defaults []auth.Permission, perm string) bool {
	return auth.HasPerm(ctx, defaults, auth.Permission(perm))
}
