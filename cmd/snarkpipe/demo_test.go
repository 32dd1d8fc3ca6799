package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/snarkpipe/snarkpipe/prover/srs"
)

func TestDemoProvesAndVerifies(t *testing.T) {
	var out bytes.Buffer
	if err := runDemo(&out, 300, srs.DirCache{Dir: t.TempDir()}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "verify") || !strings.Contains(out.String(), " ok") {
		t.Fatalf("demo output lacks a verified proof:\n%s", out.String())
	}
}

func TestDemoRejectsBadSize(t *testing.T) {
	if err := run(context.Background(), []string{"snarkpipe", "demo", "--constraints", "0"}); err == nil {
		t.Fatal("zero constraints accepted")
	}
}
