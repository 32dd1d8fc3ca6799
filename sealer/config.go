package sealer

import (
	"errors"
	"fmt"
	"time"
)

// Config sets the Service's policies. cmd composes it into the daemon's TOML file.
type Config struct {
	// AllowLargeOnCPU lets a service without a GPU accept 32/64 GiB proof types. Off by
	// default: a CPU proof of a 32 GiB PoRep takes hours and about 50 GiB of memory.
	AllowLargeOnCPU bool `toml:"allow_large_on_cpu"`
	// SkipVanillaCheck skips the native verification of vanilla proofs before proving.
	// Only for benchmarks with synthetic inputs: invalid input then costs a full proof.
	SkipVanillaCheck bool `toml:"skip_vanilla_check"`
	// Priorities per job kind: "low", "normal", "high" or "critical". Winning PoSt has a
	// deadline of seconds, Window PoSt of minutes, SealCommit2 of hours.
	WinningPriority string `toml:"winning_priority"`
	WindowPriority  string `toml:"window_priority"`
	SealPriority    string `toml:"seal_priority"`
	// RecentJobs is how many finished jobs Status and Await remember.
	RecentJobs int `toml:"recent_jobs"`
	// ResultTTL is how long a finished job's proofs stay retrievable with Await.
	ResultTTL Duration `toml:"result_ttl"`
	// MaxJobs bounds jobs admitted and not finished; more are refused as unavailable.
	MaxJobs int `toml:"max_jobs"`
}

// Duration is a time.Duration that reads and writes as text ("10m") in TOML.
type Duration time.Duration

// MarshalText writes the duration as Go duration text.
func (d Duration) MarshalText() ([]byte, error) { return []byte(time.Duration(d).String()), nil }

// UnmarshalText parses Go duration text.
func (d *Duration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(string(b))
	if err != nil {
		return err
	}
	*d = Duration(v)
	return nil
}

// DefaultConfig is the production default.
func DefaultConfig() Config {
	return Config{
		WinningPriority: "critical",
		WindowPriority:  "high",
		SealPriority:    "normal",
		RecentJobs:      256,
		ResultTTL:       Duration(30 * time.Minute),
		MaxJobs:         1024,
	}
}

// Validate checks the configuration.
func (c Config) Validate() error {
	var errs []error
	for name, p := range map[string]string{"winning_priority": c.WinningPriority, "window_priority": c.WindowPriority, "seal_priority": c.SealPriority} {
		if _, err := parsePriority(p); err != nil {
			errs = append(errs, fmt.Errorf("sealer: %s: %w", name, err))
		}
	}
	if c.RecentJobs < 0 {
		errs = append(errs, fmt.Errorf("sealer: recent_jobs %d < 0", c.RecentJobs))
	}
	if c.ResultTTL < 0 {
		errs = append(errs, fmt.Errorf("sealer: result_ttl %v < 0", time.Duration(c.ResultTTL)))
	}
	if c.MaxJobs < 1 {
		errs = append(errs, fmt.Errorf("sealer: max_jobs %d < 1", c.MaxJobs))
	}
	return errors.Join(errs...)
}
