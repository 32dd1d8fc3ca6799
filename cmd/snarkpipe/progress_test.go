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

// TestProgressBytes: in byte mode the plain lines and the terminal bar show the amounts,
// the rate of the bytes moved and the time left; println keeps the bar under the line.
func TestProgressBytes(t *testing.T) {
	var buf bytes.Buffer
	p := newStepProgress(&buf, false, "parameter files (8)")
	p.updateBytes(150e6, 1e9, 100e6)
	p.println("  fetched x.vk")
	p.finish(nil)
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 4 || !strings.Contains(lines[1], "parameter files (8): 15% (150.0 MB/1.0 GB ") ||
		!strings.Contains(lines[1], "/s ETA ") || lines[2] != "  fetched x.vk" {
		t.Fatalf("%d lines:\n%s", len(lines), buf.String())
	}
	buf.Reset()
	p = newStepProgress(&buf, true, "x")
	p.updateBytes(500, 1000, 500)
	p.println("  line")
	p.finish(nil)
	if out := buf.String(); !strings.Contains(out, "500 B/1.0 kB") || !strings.Contains(out, "\r\x1b[K  line\n\r  [") {
		t.Fatalf("terminal output %q", out)
	}
}
