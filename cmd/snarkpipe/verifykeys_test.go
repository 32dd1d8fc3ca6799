package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestVerifyWithoutKeyMakesNone: verify on a fresh cache, with no official .vk and no
// --vk, is an error that says what to pass, and leaves no key (no cache directory) behind.
func TestVerifyWithoutKeyMakesNone(t *testing.T) {
	t.Setenv(envParamCache, t.TempDir())
	cache := filepath.Join(t.TempDir(), "dev-params")
	proof := filepath.Join(t.TempDir(), "window.proof")
	if err := os.WriteFile(proof, make([]byte, 192), 0o644); err != nil {
		t.Fatal(err)
	}
	err := run(context.Background(), postArgs("verify", "window", "5", postRandomness, 2, "--cache", cache, "--proof", proof))
	if !errors.Is(err, errNoVerifyingKey) {
		t.Fatalf("want errNoVerifyingKey, got %v", err)
	}
	for _, want := range []string{"--vk FILE", "prove --vk-out", cache} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q: %v", want, err)
		}
	}
	if _, err := os.Stat(cache); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("verify created the cache directory %s (%v)", cache, err)
	}
}

// TestOneDevParamCache: prove, verify, demo and the daemon default to one directory.
func TestOneDevParamCache(t *testing.T) {
	cfg := defaultDaemonConfig()
	if err := cfg.resolvePaths(); err != nil {
		t.Fatal(err)
	}
	if dir := (keyFlags{}).cacheDir(); cfg.DevParamDir != dir {
		t.Fatalf("daemon dev_param_dir %s, prove/verify/demo cache %s", cfg.DevParamDir, dir)
	}
}
