package lotus

import (
	"errors"
	"fmt"
	"time"
)

// Config sets the worker adapter's behaviour. cmd composes it into the TOML file.
type Config struct {
	// Roles are the registrations made with the miner ("c2", "wdpost", "winpost").
	Roles []Role `toml:"roles"`
	// Hostname is reported in Info (the miner's job list shows it); empty: os.Hostname.
	Hostname string `toml:"hostname"`
	// HeartbeatInterval is how often the miner's Session is polled (lotus: 10 s).
	HeartbeatInterval time.Duration `toml:"heartbeat_interval"`
	// ReturnRetryInterval is the wait between attempts to report a result (lotus: 5 s).
	ReturnRetryInterval time.Duration `toml:"return_retry_interval"`
	// PoStParallelReads bounds concurrent vanilla proof reads per PoSt call (a 32 GiB
	// Window partition challenges 2349 sectors).
	PoStParallelReads int `toml:"post_parallel_reads"`
	// PoStReadTimeout bounds one sector's vanilla proof read (find + fetch); a sector that
	// times out is skipped.
	PoStReadTimeout time.Duration `toml:"post_read_timeout"`
	// C2MaxConcurrent is how many SealCommit2 calls the miner may have on this worker at
	// once, and separately how many ProveReplicaUpdate2 calls (lotus counts each task type
	// on its own); our own queue orders them. PoStMaxConcurrent is the same for each PoSt
	// role.
	C2MaxConcurrent   int `toml:"c2_max_concurrent"`
	PoStMaxConcurrent int `toml:"post_max_concurrent"`
	// GPUs are the device names reported in Info (informational: our resource table asks
	// for no GPU share, see resources.go).
	GPUs []string `toml:"gpus"`
}

// DefaultConfig is the production default.
func DefaultConfig() Config {
	return Config{
		Roles:               []Role{RoleC2},
		HeartbeatInterval:   10 * time.Second,
		ReturnRetryInterval: 5 * time.Second,
		PoStParallelReads:   128,
		PoStReadTimeout:     60 * time.Second,
		C2MaxConcurrent:     4,
		PoStMaxConcurrent:   2,
	}
}

// Validate checks the configuration.
func (c Config) Validate() error {
	var errs []error
	if len(c.Roles) == 0 {
		errs = append(errs, errors.New("lotus: no roles"))
	}
	seen := map[Role]bool{}
	for _, r := range c.Roles {
		if !r.Valid() {
			errs = append(errs, fmt.Errorf("lotus: unknown role %q", r))
		}
		if seen[r] {
			errs = append(errs, fmt.Errorf("lotus: role %q listed twice", r))
		}
		seen[r] = true
	}
	if c.HeartbeatInterval <= 0 {
		errs = append(errs, fmt.Errorf("lotus: heartbeat_interval %v <= 0", c.HeartbeatInterval))
	}
	if c.ReturnRetryInterval <= 0 {
		errs = append(errs, fmt.Errorf("lotus: return_retry_interval %v <= 0", c.ReturnRetryInterval))
	}
	if c.PoStParallelReads < 1 {
		errs = append(errs, fmt.Errorf("lotus: post_parallel_reads %d < 1", c.PoStParallelReads))
	}
	if c.PoStReadTimeout <= 0 {
		errs = append(errs, fmt.Errorf("lotus: post_read_timeout %v <= 0", c.PoStReadTimeout))
	}
	if c.C2MaxConcurrent < 1 || c.PoStMaxConcurrent < 1 {
		errs = append(errs, fmt.Errorf("lotus: c2_max_concurrent %d and post_max_concurrent %d must be >= 1", c.C2MaxConcurrent, c.PoStMaxConcurrent))
	}
	return errors.Join(errs...)
}
