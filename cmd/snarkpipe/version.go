package main

import (
	"fmt"
	"io"
	"runtime/debug"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/snarkpipe/snarkpipe/prover/backend/gpu"
	"github.com/snarkpipe/snarkpipe/rpc/api"
)

// commit is set by `make build` (-ldflags -X main.commit=...), for builds where Go's own
// VCS stamping is off (-buildvcs=false) or impossible.
var commit string

// buildCommit is the VCS revision the binary was built from ("unknown" under go run or
// outside a checkout), with "-dirty" when the tree had local changes.
func buildCommit() string {
	if commit != "" {
		return commit
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	var rev, dirty string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "-dirty"
			}
		}
	}
	if rev == "" {
		return "unknown"
	}
	return rev[:min(12, len(rev))] + dirty
}

// printVersion is `snarkpipe --version`: what an operator pastes into a bug report.
func printVersion(w io.Writer) {
	fmt.Fprintf(w, "snarkpipe %s (commit %s)\n", api.Version, buildCommit())
	p := gpu.ProbeDevices()
	if p.Library != "" {
		fmt.Fprintf(w, "CUDA library: %s\n", p.Library)
		if p.Build != "" {
			fmt.Fprintf(w, "CUDA library built for: %s\n", p.Build)
		}
	} else {
		fmt.Fprintln(w, "CUDA library: not found (CPU backend only; `make cuda` builds it)")
	}
	switch {
	case len(p.Devices) > 0:
		fmt.Fprintf(w, "GPU: %s\n", strings.Join(p.Devices, ", "))
	case p.Library != "":
		fmt.Fprintf(w, "GPU: none (%v)\n", p.Err)
	}
}

func init() {
	cli.VersionPrinter = func(c *cli.Context) { printVersion(c.App.Writer) }
}
