package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestBenchSummary: the first proof is the first to finish; steady state is the time
// between completions after it; a proof that failed counts for neither.
func TestBenchSummary(t *testing.T) {
	r := benchResult{Proofs: 4, ProofRows: []proofRow{
		{Proof: 2, Start: 0, End: 14, Latency: 14, Verified: true},
		{Proof: 1, Start: 0, End: 10, Latency: 10, Verified: true},
		{Proof: 4, Start: 0, End: 30, Latency: 30, Verified: false},
		{Proof: 3, Start: 0.5, End: 18, Latency: 17.5, Verified: true},
	}}
	r.summarize()
	if r.Verified != 3 || r.FirstProof != 10 || r.SteadyState != 4 || r.PerHour != 900 || r.Wall != 18 {
		t.Fatalf("verified %d, first %v, steady %v, per hour %v, wall %v; want 3, 10, 4, 900, 18",
			r.Verified, r.FirstProof, r.SteadyState, r.PerHour, r.Wall)
	}
	if r.ProofRows[0].Proof != 1 || r.ProofRows[3].Proof != 4 {
		t.Fatalf("proof rows not in proof order: %+v", r.ProofRows)
	}
	var out bytes.Buffer
	r.Rows = []partRow{{Proof: 1, Total: 10}, {Proof: 2, Total: 4, Device: 2, DevWait: 1, Upload: 0.5},
		{Proof: 3, Total: 6, Device: 4, Buffers: 3, Upload: 0.25}}
	r.writeTable(&out)
	for _, want := range []string{"proofs verified       3 of 4", "4.000 s per proof", "900.0 proofs/hour", "proofs 2+"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, out.String())
		}
	}
	if strings.Contains(out.String(), "out-of-memory") {
		t.Errorf("summary mentions out-of-memory retries that did not happen:\n%s", out.String())
	}
	out.Reset()
	r.Rows[2].OOMRetries = 1
	r.writeTable(&out)
	if want := "out-of-memory retries 1 of 3 partitions"; !strings.Contains(out.String(), want) {
		t.Errorf("table lacks %q:\n%s", want, out.String())
	}
	mean, _, _ := r.meanRow()
	if mean.Total != 5 || mean.Device != 3 || mean.DevWait != 0.5 || mean.Buffers != 1.5 || mean.Upload != 0.375 {
		t.Errorf("mean row over proofs 2+: total %v, device %v, wait %v, buffers %v, upload %v; want 5, 3, 0.5, 1.5, 0.375",
			mean.Total, mean.Device, mean.DevWait, mean.Buffers, mean.Upload)
	}
}
