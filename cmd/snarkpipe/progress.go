package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"
)

// stepProgress reports one long step (dev-parameter generation, parameter loading, circuit
// recording) on stderr: a bar redrawn in place when stderr is a terminal, otherwise a
// plain line at the start, every 10% (or each minute without a known total) and at the
// end, so that logs stay readable. Safe for concurrent updates.
type stepProgress struct {
	w        io.Writer
	terminal bool
	label    string
	start    time.Time

	mu       sync.Mutex
	lastPct  int
	lastLine time.Time
	drawn    time.Time
}

// stderrIsTerminal says whether stderr is a character device (a terminal), without a
// dependency: a redirected or journald-captured stderr is a file, pipe or socket.
func stderrIsTerminal() bool {
	fi, err := os.Stderr.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// startStep begins a step on stderr.
func startStep(label string) *stepProgress {
	return newStepProgress(os.Stderr, stderrIsTerminal(), label)
}

func newStepProgress(w io.Writer, terminal bool, label string) *stepProgress {
	p := &stepProgress{w: w, terminal: terminal, label: label, start: time.Now(), lastPct: -1}
	if !terminal {
		fmt.Fprintf(w, "%s ...\n", label)
		p.lastLine = p.start
	}
	return p
}

// update reports done of total (total 0: unknown).
func (p *stepProgress) update(done, total int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now()
	pct := -1
	if total > 0 {
		pct = int(min(100, done*100/total))
	}
	if p.terminal {
		if now.Sub(p.drawn) < 100*time.Millisecond && pct < 100 {
			return
		}
		p.drawn = now
		fmt.Fprintf(p.w, "\r%s %s %s\x1b[K", p.label, bar(pct, 30), elapsed(now.Sub(p.start)))
		return
	}
	if pct >= 0 && pct/10 > p.lastPct/10 && pct < 100 {
		p.lastPct = pct
		p.lastLine = now
		fmt.Fprintf(p.w, "%s: %d%% (%s)\n", p.label, pct, elapsed(now.Sub(p.start)))
	} else if pct < 0 && now.Sub(p.lastLine) >= time.Minute {
		p.lastLine = now
		fmt.Fprintf(p.w, "%s: still running (%s)\n", p.label, elapsed(now.Sub(p.start)))
	}
}

// finish ends the step with its time, or its error.
func (p *stepProgress) finish(err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.terminal {
		fmt.Fprint(p.w, "\r\x1b[K")
	}
	took := elapsed(time.Since(p.start))
	if err != nil {
		fmt.Fprintf(p.w, "%s: failed after %s: %v\n", p.label, took, err)
		return
	}
	fmt.Fprintf(p.w, "%s: done in %s\n", p.label, took)
}

// bar draws pct (-1: unknown) in width cells.
func bar(pct, width int) string {
	if pct < 0 {
		return "[" + strings.Repeat(".", width) + "]"
	}
	n := pct * width / 100
	return fmt.Sprintf("[%s%s] %3d%%", strings.Repeat("#", n), strings.Repeat(" ", width-n), pct)
}

func elapsed(d time.Duration) string {
	if d < time.Minute {
		return fmt.Sprintf("%.1fs", d.Seconds())
	}
	return d.Round(time.Second).String()
}
