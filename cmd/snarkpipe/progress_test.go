package main

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

// TestProgressPlainLines: without a terminal, a step prints a start line, a line per
// 10%, and an end line; no carriage returns.
func TestProgressPlainLines(t *testing.T) {
	var buf bytes.Buffer
	p := newStepProgress(&buf, false, "dev parameters for wpost-2k")
	for i := int64(0); i <= 1000; i += 7 {
		p.update(i, 1000)
	}
	p.finish(nil)
	out := buf.String()
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if strings.Contains(out, "\r") || len(lines) != 11 || !strings.HasSuffix(lines[0], "...") ||
		!strings.Contains(lines[1], ": 10%") || !strings.Contains(lines[10], "done in") {
		t.Fatalf("%d lines:\n%s", len(lines), out)
	}
	buf.Reset()
	p = newStepProgress(&buf, true, "x")
	p.update(50, 100)
	p.finish(errors.New("boom"))
	if !strings.Contains(buf.String(), "\r") || !strings.Contains(buf.String(), "50%") || !strings.Contains(buf.String(), "failed after") {
		t.Fatalf("terminal output %q", buf.String())
	}
}
