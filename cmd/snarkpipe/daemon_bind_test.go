package main

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"
)

// TestDaemonBindClashNamesEndpoint: a port already taken fails the start with the
// endpoint and the key to change, not a bare "address already in use".
func TestDaemonBindClashNamesEndpoint(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	for _, tc := range []struct {
		name, want string
		edit       func(*daemonConfig)
	}{
		{"api", `JSON-RPC API (listen "`, func(c *daemonConfig) { c.Listen = taken.Addr().String() }},
		{"cuzk", `Curio (cuzk) endpoint ([cuzk] address "`, func(c *daemonConfig) {
			c.Cuzk.Enabled, c.Cuzk.Listen = true, taken.Addr().String()
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := testDaemonConfig(t)
			tc.edit(&cfg)
			d, err := startDaemon(context.Background(), cfg)
			if err == nil {
				d.shutdown(time.Minute)
				t.Fatal("started on a taken port")
			}
			if !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "another process") {
				t.Fatalf("error does not name the endpoint: %v", err)
			}
		})
	}
}

// TestConfigListenCuzkSameAddress: the same address for the API and the cuzk endpoint is
// refused before anything starts.
func TestConfigListenCuzkSameAddress(t *testing.T) {
	cfg := defaultDaemonConfig()
	cfg.Cuzk.Enabled = true
	if err := cfg.validate(); err != nil {
		t.Fatalf("default listen and cuzk address clash: %v", err)
	}
	cfg.Listen = cfg.Cuzk.Listen
	if err := cfg.validate(); err == nil || !strings.Contains(err.Error(), "[cuzk] address") {
		t.Fatalf("want a clash error, got %v", err)
	}
}
