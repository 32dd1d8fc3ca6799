package pipeline

import (
	"encoding/json"
	"io"
	"sync"
	"time"
)

// timeline keeps the last events of every stage in a ring buffer and writes them as a
// Chrome trace-event JSON document (chrome://tracing, Perfetto): one complete ("X") event
// per stage per partition, on a track per worker.
type timeline struct {
	start time.Time
	mu    sync.Mutex
	ring  []traceEvent
	next  int
	full  bool
	tids  map[string]int // worker name → track
}

type traceEvent struct {
	Name string         `json:"name"`
	Cat  string         `json:"cat"`
	Ph   string         `json:"ph"`
	TS   float64        `json:"ts"` // µs since the pipeline started
	Dur  float64        `json:"dur,omitempty"`
	PID  int            `json:"pid"`
	TID  int            `json:"tid"`
	Args map[string]any `json:"args,omitempty"`
}

func newTimeline(capacity int) *timeline {
	return &timeline{start: time.Now(), ring: make([]traceEvent, capacity), tids: make(map[string]int)}
}

// span records one stage of one partition on worker's track.
func (t *timeline) span(stage, worker string, from, to time.Time, p *partition) {
	if t == nil || len(t.ring) == 0 {
		return
	}
	ev := traceEvent{
		Name: stage, Cat: p.job.Kind, Ph: "X", PID: 1,
		TS:  float64(from.Sub(t.start).Nanoseconds()) / 1e3,
		Dur: float64(to.Sub(from).Nanoseconds()) / 1e3,
		Args: map[string]any{
			"job": p.job.ID, "partition": p.index, "circuit": string(p.job.Circuit),
			"priority": p.job.Priority.String(),
		},
	}
	t.mu.Lock()
	tid, ok := t.tids[worker]
	if !ok {
		tid = len(t.tids) + 1
		t.tids[worker] = tid
	}
	ev.TID = tid
	t.ring[t.next] = ev
	t.next++
	if t.next == len(t.ring) {
		t.next, t.full = 0, true
	}
	t.mu.Unlock()
}

// write emits the buffered events, oldest first.
func (t *timeline) write(w io.Writer) error {
	var events []traceEvent
	if t != nil {
		t.mu.Lock()
		if t.full {
			events = append(events, t.ring[t.next:]...)
		}
		events = append(events, t.ring[:t.next]...)
		for name, tid := range t.tids {
			events = append(events, traceEvent{Name: "thread_name", Ph: "M", PID: 1, TID: tid, Args: map[string]any{"name": name}})
		}
		t.mu.Unlock()
	}
	if events == nil {
		events = []traceEvent{}
	}
	return json.NewEncoder(w).Encode(struct {
		TraceEvents     []traceEvent `json:"traceEvents"`
		DisplayTimeUnit string       `json:"displayTimeUnit"`
	}{events, "ms"})
}
