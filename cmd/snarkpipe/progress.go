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
	pct      int // last known percentage, -1: unknown
	lastPct  int
	lastLine time.Time
	drawn    time.Time
	drawnPct int
	stop     chan struct{}
	finished bool

	// Byte mode (updateBytes: downloads): the bar also shows the amount, the rate of the
	// bytes moved by this run and the time left at that rate.
	bytes              bool
	done, total, moved int64
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
	p := &stepProgress{w: w, terminal: terminal, label: label, start: time.Now(), pct: -1, lastPct: -1, stop: make(chan struct{})}
	fmt.Fprintf(w, "%s ...\n", label)
	p.lastLine = p.start
	if terminal {
		p.draw(p.start)
	}
	go p.tick()
	return p
}

// tick keeps a step without updates alive: the elapsed time on a terminal each second,
// a "still running" line each minute otherwise.
func (p *stepProgress) tick() {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-p.stop:
			return
		case now := <-t.C:
			p.mu.Lock()
			switch {
			case p.finished:
			case p.terminal:
				p.draw(now)
			case now.Sub(p.lastLine) >= time.Minute:
				p.lastLine = now
				fmt.Fprintf(p.w, "%s: still running (%s)\n", p.label, elapsed(now.Sub(p.start)))
			}
			p.mu.Unlock()
		}
	}
}

// draw redraws the terminal line under the step's label: the bar and the time only, so
// that the line never wraps (a wrapped line cannot be redrawn with \r). Called with
// p.mu held.
func (p *stepProgress) draw(now time.Time) {
	p.drawn, p.drawnPct = now, p.pct
	if p.bytes {
		fmt.Fprintf(p.w, "\r  %s %s %s\x1b[K", bar(p.pct, 20), p.amounts(now), elapsed(now.Sub(p.start)))
		return
	}
	fmt.Fprintf(p.w, "\r  %s %s\x1b[K", bar(p.pct, 30), elapsed(now.Sub(p.start)))
}

// amounts is byte mode's "19.9 GB/47.4 GB 112.0 MB/s ETA 4m5s" (short enough for one line).
func (p *stepProgress) amounts(now time.Time) string {
	s := fmt.Sprintf("%s/%s", decimalBytes(p.done), decimalBytes(p.total))
	secs := now.Sub(p.start).Seconds()
	if p.moved <= 0 || secs <= 0 {
		return s
	}
	rate := float64(p.moved) / secs
	s += " " + decimalBytes(int64(rate)) + "/s"
	if left := p.total - p.done; left > 0 {
		s += " ETA " + time.Duration(float64(left)/rate*float64(time.Second)).Round(time.Second).String()
	}
	return s
}

// updateBytes reports done of total bytes, of which this run moved moved (the rate and
// the time left are reckoned from moved).
func (p *stepProgress) updateBytes(done, total, moved int64) {
	p.mu.Lock()
	p.bytes, p.done, p.total, p.moved = true, done, total, moved
	p.mu.Unlock()
	p.update(done, total)
}

// println prints a line while the step runs, keeping a terminal's bar below it.
func (p *stepProgress) println(line string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.terminal || p.finished {
		fmt.Fprintln(p.w, line)
		return
	}
	fmt.Fprintf(p.w, "\r\x1b[K%s\n", line)
	p.draw(time.Now())
}

// update reports done of total (total 0: unknown, the step shows its time only).
func (p *stepProgress) update(done, total int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now()
	if p.finished || total <= 0 {
		return
	}
	pct := int(min(100, done*100/total))
	p.pct = max(p.pct, pct)
	if p.terminal {
		if p.pct != p.drawnPct || now.Sub(p.drawn) >= 100*time.Millisecond {
			p.draw(now)
		}
		return
	}
	if p.pct/10 > p.lastPct/10 && p.pct < 100 {
		p.lastPct = p.pct
		p.lastLine = now
		if p.bytes {
			fmt.Fprintf(p.w, "%s: %d%% (%s) (%s)\n", p.label, p.pct, p.amounts(now), elapsed(now.Sub(p.start)))
			return
		}
		fmt.Fprintf(p.w, "%s: %d%% (%s)\n", p.label, p.pct, elapsed(now.Sub(p.start)))
	}
}

// finish ends the step with its time, or its error.
func (p *stepProgress) finish(err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.finished {
		return
	}
	p.finished = true
	close(p.stop)
	took := elapsed(time.Since(p.start))
	prefix := p.label + ": "
	if p.terminal {
		fmt.Fprint(p.w, "\r\x1b[K")
		prefix = "  " // under the label printed at the start
	}
	if err != nil {
		fmt.Fprintf(p.w, "%sfailed after %s: %v\n", prefix, took, err)
		return
	}
	fmt.Fprintf(p.w, "%sdone in %s\n", prefix, took)
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

// decimalBytes writes a byte count in decimal units (47.4 GB), as download sizes are
// usually given.
func decimalBytes(n int64) string {
	switch {
	case n >= 1e9:
		return fmt.Sprintf("%.1f GB", float64(n)/1e9)
	case n >= 1e6:
		return fmt.Sprintf("%.1f MB", float64(n)/1e6)
	case n >= 1e3:
		return fmt.Sprintf("%.1f kB", float64(n)/1e3)
	default:
		return fmt.Sprintf("%d B", n)
	}
}
