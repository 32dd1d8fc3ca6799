package pipeline

import (
	"testing"
	"time"

	"github.com/snarkpipe/snarkpipe/prover/backend"
	"github.com/snarkpipe/snarkpipe/prover/groth16"
)

// traceSpan is one event of a timeline, in milliseconds since the proof started.
type traceSpan struct {
	track    string
	from, to float64
}

// residentSpans draws one resident proof with tm and returns its events by stage.
func residentSpans(t *testing.T, tm backend.ResidentTimings) map[string]traceSpan {
	t.Helper()
	p := &Pipeline{trace: newTimeline(32)}
	part := &partition{job: &Job{ID: 1, Kind: "porep", Circuit: "c"}}
	part.t.ProveStart = p.trace.start
	part.t.Resident = groth16.DeviceTimings{ResidentTimings: tm, Assemble: time.Millisecond}
	p.traceResident("w0", part)
	tracks := map[int]string{}
	for name, tid := range p.trace.tids {
		tracks[tid] = name
	}
	spans := map[string]traceSpan{}
	for _, ev := range p.trace.ring[:p.trace.next] {
		spans[ev.Name] = traceSpan{tracks[ev.TID], ev.TS / 1e3, (ev.TS + ev.Dur) / 1e3}
	}
	return spans
}

// TestTraceResidentTracks: one stream draws every stage one after the other on the
// worker's track; with a side stream, L starts on "<worker> side" when A·z ends, B1, B2
// and A follow there once L and the quotient are both done, and H and assembly stay on
// the worker's track.
func TestTraceResidentTracks(t *testing.T) {
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	tm := backend.ResidentTimings{Upload: ms(1), Eval: ms(2), Quotient: ms(10), MSMH: ms(30),
		MSML: ms(12), MSMA: ms(3), MSMB1: ms(4), MSMB2: ms(5)}
	want := map[string]traceSpan{
		"upload": {"w0", 0, 1}, "A·z B·z C·z": {"w0", 1, 3}, "quotient": {"w0", 3, 13}, "msm H": {"w0", 13, 43},
		"msm L": {"w0", 43, 55}, "msm A": {"w0", 55, 58}, "msm B1": {"w0", 58, 62}, "msm B2 (G2)": {"w0", 62, 67},
		"assemble": {"w0", 67, 68},
	}
	expectSpans(t, "one stream", residentSpans(t, tm), want)
	tm.SideStream = true
	want = map[string]traceSpan{
		"upload": {"w0", 0, 1}, "A·z B·z C·z": {"w0", 1, 3}, "quotient": {"w0", 3, 13}, "msm H": {"w0", 13, 43},
		"msm L": {"w0 side", 3, 15}, "msm B1": {"w0 side", 15, 19}, "msm B2 (G2)": {"w0 side", 19, 24},
		"msm A": {"w0 side", 24, 27}, "assemble": {"w0", 43, 44},
	}
	expectSpans(t, "side stream, L past the quotient", residentSpans(t, tm), want)
	tm.MSML = ms(6) // L ends before the quotient: B1 waits for the quotient
	want["msm L"], want["msm B1"], want["msm B2 (G2)"], want["msm A"] =
		traceSpan{"w0 side", 3, 9}, traceSpan{"w0 side", 13, 17}, traceSpan{"w0 side", 17, 22}, traceSpan{"w0 side", 22, 25}
	expectSpans(t, "side stream, L within the quotient", residentSpans(t, tm), want)
}

func expectSpans(t *testing.T, label string, got, want map[string]traceSpan) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: %d spans, want %d: %v", label, len(got), len(want), got)
	}
	near := func(a, b float64) bool { return a-b < 1e-6 && b-a < 1e-6 }
	for name, w := range want {
		g, ok := got[name]
		if !ok || g.track != w.track || !near(g.from, w.from) || !near(g.to, w.to) {
			t.Errorf("%s: %s = %+v, want %+v", label, name, g, w)
		}
	}
}
