package main

import (
	"fmt"
	"io"
	"path/filepath"

	"github.com/snarkpipe/snarkpipe/rpc/remotec2"
)

// reportStart is what the daemon prints once it listens: every endpoint, how a client
// gets a token, how local commands find it, and what it serves.
func reportStart(w io.Writer, d *daemon) {
	cfg := d.cfg
	fmt.Fprintf(w, "snarkpipe daemon: backend %s, %s parameters\n", d.backend, provenanceKind(cfg))
	fmt.Fprintf(w, "  JSON-RPC API      http://%s/rpc/v0 (listen)\n", d.apiAddr)
	if d.metricAddr != nil {
		fmt.Fprintf(w, "  health, metrics   http://%s/healthz, /metrics (metrics_listen)\n", d.metricAddr)
	}
	if cfg.Cuzk.Enabled {
		fmt.Fprintf(w, "  Curio (cuzk)      %s: in Curio's config, [Cuzk] Address = %q\n", cfg.Cuzk.Listen, cfg.Cuzk.Listen)
	} else {
		fmt.Fprintln(w, "  Curio (cuzk)      off ([cuzk] enabled = true serves Curio's [Cuzk] Address)")
	}
	fmt.Fprintf(w, "  lotus RemoteC2    http://%s%s?token=<write token>\n", d.apiAddr, remotec2.Path)
	fmt.Fprintf(w, "  tokens            snarkpipe auth create-token --perm read|write|admin (secret %s)\n", cfg.TokenSecret)
	if d.apiFile != nil {
		fmt.Fprintf(w, "  local clients     snarkpipe status finds this daemon through %s\n", filepath.Join(cfg.StateDir, apiFileName))
	}
	reportServable(w, d.svc)
}
