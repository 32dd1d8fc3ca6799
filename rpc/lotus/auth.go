package lotus

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/filecoin-project/go-jsonrpc/auth"
	"github.com/golang-jwt/jwt/v5"
)

// TokenVerifier checks a bearer token and returns the permissions it grants.
type TokenVerifier func(ctx context.Context, token string) ([]auth.Permission, error)

// MinerVerifier checks tokens with the miner's AuthVerify, as lotus-worker does. Accepted
// tokens are remembered for ttl so that a busy miner is not asked on every call.
func MinerVerifier(m *MinerClient, ttl time.Duration) TokenVerifier {
	type entry struct {
		perms []auth.Permission
		until time.Time
	}
	var mu sync.Mutex
	cache := map[string]entry{}
	return func(ctx context.Context, token string) ([]auth.Permission, error) {
		mu.Lock()
		e, ok := cache[token]
		mu.Unlock()
		if ok && time.Now().Before(e.until) {
			return e.perms, nil
		}
		perms, err := m.AuthVerify(ctx, token)
		if err != nil {
			return nil, err
		}
		mu.Lock()
		if len(cache) > 1024 {
			clear(cache)
		}
		cache[token] = entry{perms: perms, until: time.Now().Add(ttl)}
		mu.Unlock()
		return perms, nil
	}
}

// SecretVerifier checks lotus HS256 tokens ({"Allow": [...]}) with the miner's API secret.
func SecretVerifier(secret []byte) TokenVerifier {
	return func(_ context.Context, token string) ([]auth.Permission, error) {
		var c struct {
			Allow []auth.Permission `json:"Allow"`
			jwt.RegisteredClaims
		}
		_, err := jwt.ParseWithClaims(token, &c, func(*jwt.Token) (any, error) { return secret, nil },
			jwt.WithValidMethods([]string{jwt.SigningMethodHS256.Alg()}))
		if err != nil {
			return nil, err
		}
		return c.Allow, nil
	}
}

// ReadJWTSecret reads the miner's API secret for SecretVerifier: either lotus' keystore
// entry (repo/keystore/MF2XI2BNNJ3XILLQOJUXMYLUMU, JSON {"Type":"jwt-hmac-secret",
// "PrivateKey":"<base64>"}) or a file holding the raw secret bytes.
func ReadJWTSecret(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("lotus: miner secret: %w", err)
	}
	var ki struct {
		Type       string
		PrivateKey []byte
	}
	if json.Unmarshal(b, &ki) == nil && len(ki.PrivateKey) > 0 {
		if ki.Type != "" && ki.Type != "jwt-hmac-secret" {
			return nil, fmt.Errorf("lotus: miner secret %s is a %q key, want jwt-hmac-secret", path, ki.Type)
		}
		b = ki.PrivateKey
	}
	if len(b) < 16 {
		return nil, fmt.Errorf("lotus: miner secret %s is %d bytes, want at least 16", path, len(b))
	}
	return b, nil
}

// requireAdmin lets through only requests whose token grants admin: every lotus worker
// method is perm:admin. A missing or bad token gets 401, a weaker token 403, both with a
// JSON-RPC error body.
func requireAdmin(verify TokenVerifier, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		token, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if !ok {
			token = r.URL.Query().Get("token")
		}
		if token == "" {
			writeRPCError(w, http.StatusUnauthorized, "missing bearer token (lotus worker methods need 'admin')")
			return
		}
		perms, err := verify(r.Context(), token)
		if err != nil {
			writeRPCError(w, http.StatusUnauthorized, "invalid token: "+err.Error()+
				" (this is a lotus worker endpoint: it takes lotus-miner's admin tokens, the one in MINER_API_INFO, not tokens from snarkpipe auth)")
			return
		}
		if !slices.Contains(perms, auth.Permission("admin")) {
			writeRPCError(w, http.StatusForbidden, "missing permission to invoke worker methods (need 'admin')")
			return
		}
		next.ServeHTTP(w, r.WithContext(auth.WithPerm(r.Context(), perms)))
	})
}

func writeRPCError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": nil, "error": map[string]any{"code": 1, "message": msg}})
}
