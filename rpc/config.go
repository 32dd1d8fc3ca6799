package rpc

import (
	"errors"
	"fmt"
	"github.com/filecoin-project/go-jsonrpc/auth"
)

// Config sets the JSON-RPC server's limits and defaults.
type Config struct {
	// MaxRequestBytes bounds a request body. The default leaves headroom for a 64 GiB C1
	// output (~55 MB of JSON, ~73 MB once base64'd inside a request) and is set explicitly
	// rather than left to go-jsonrpc's 100 MiB default.
	MaxRequestBytes int64 `toml:"max_request_bytes"`
	// UnauthenticatedPerm is what a request without a token may do: "" (nothing, the
	// default), or "read".
	UnauthenticatedPerm string `toml:"unauthenticated_perm"`
}

// DefaultConfig is the production default.
func DefaultConfig() Config {
	return Config{MaxRequestBytes: 192 << 20}
}

// Validate checks the configuration.
func (c Config) Validate() error {
	var errs []error
	if c.MaxRequestBytes < 4<<10 {
		errs = append(errs, fmt.Errorf("rpc: max_request_bytes %d is below 4 KiB", c.MaxRequestBytes))
	}
	if c.UnauthenticatedPerm != "" && c.UnauthenticatedPerm != "read" {
		errs = append(errs, fmt.Errorf("rpc: unauthenticated_perm %q: only \"\" or \"read\" are allowed", c.UnauthenticatedPerm))
	}
	return errors.Join(errs...)
}

func (c Config) defaultPerms() []auth.Permission {
	if c.UnauthenticatedPerm == "" {
		return nil
	}
	return []auth.Permission{auth.Permission(c.UnauthenticatedPerm)}
}
