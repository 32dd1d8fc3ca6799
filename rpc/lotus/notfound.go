package lotus

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// notFound answers every path that is not a role's endpoint. A lotus worker serves
// /rpc/v0, so that is where an operator (or a client configured for lotus-worker) points
// first; a text 404 there reaches JSON-RPC clients as a parse error. The answer is a
// JSON-RPC error naming the role endpoints: a POST that carries a request id gets it back
// with HTTP 200 (so that every JSON-RPC client, go-jsonrpc included, shows the message),
// anything else a 404.
func notFound(roles []Role) http.Handler {
	paths := make([]string, len(roles))
	for i, r := range roles {
		paths[i] = r.Path()
	}
	msg := fmt.Sprintf("no endpoint at this path: this snarkpipe worker serves each role at its own path (%s); "+
		"lotus-miner learns them at registration. The native snarkpipe API is on the daemon's API address, not here",
		strings.Join(paths, ", "))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			ID json.RawMessage `json:"id"`
		}
		status := http.StatusNotFound
		if r.Method == http.MethodPost && json.NewDecoder(io.LimitReader(r.Body, 1<<20)).Decode(&req) == nil && len(req.ID) > 0 {
			status = http.StatusOK
		}
		id := req.ID
		if len(id) == 0 {
			id = json.RawMessage("null")
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_ = json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": id,
			"error": map[string]any{"code": -32601, "message": msg}})
	})
}
