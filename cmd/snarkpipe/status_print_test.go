package main

import (
	"strings"
	"testing"
	"time"

	"github.com/snarkpipe/snarkpipe/rpc/api"
)

// TestPrintStatusSummarisesProofTypes: the served proof types are one short line per
// availability (kinds and sector sizes), not every upstream name.
func TestPrintStatusSummarisesProofTypes(t *testing.T) {
	st := &api.Status{Backend: "cpu", ProofTypes: []api.ProofTypeStatus{
		{Name: "StackedDrg2KiBV1", Kind: "seal", Servable: true},
		{Name: "StackedDrg2KiBV1_1", Kind: "seal", Servable: true},
		{Name: "StackedDrg2KiBV1", Kind: "update", Servable: true},
		{Name: "StackedDrg32GiBV1", Kind: "update", Servable: false, Reason: "needs a GPU backend"},
	}}
	var sb strings.Builder
	printStatus(&sb, st)
	for _, want := range []string{"serves 3 proof types: SealCommit2 2KiB; SnapDeals 2KiB\n", "not served (needs a GPU backend): SnapDeals 32GiB\n"} {
		if !strings.Contains(sb.String(), want) {
			t.Errorf("status lacks %q:\n%s", want, sb.String())
		}
	}
}

// TestPrintStatusReadable: sizes in binary units, no device rows on the CPU backend, and
// a running job's elapsed time and partitions done.
func TestPrintStatusReadable(t *testing.T) {
	now := time.Now()
	st := &api.Status{Backend: "cpu",
		Resident: []api.ResidentSRS{
			{CircuitID: "wpost-2k", Where: "host", Bytes: 3 << 29, Provenance: "dev"},
			{CircuitID: "wpost-2k", Where: "device0", Bytes: 3 << 29, Provenance: "dev"},
		},
		Recent: []api.JobInfo{{ID: "seal-commit2-1", Sector: "miner 1000 sector 1", ProofType: "StackedDrg2KiBV1_1", State: "running",
			Partitions: 10, PartitionsDone: 3, Submitted: now.Add(-90 * time.Second),
			Timings: []api.StageTiming{{Prove: 2 * time.Second}}}},
	}
	var sb strings.Builder
	printStatus(&sb, st)
	out := sb.String()
	if strings.Contains(out, "device0") {
		t.Errorf("device rows on the CPU backend:\n%s", out)
	}
	for _, want := range []string{"1.5 GiB", "miner 1000 sector 1", "3/10", "90.0", "2.000s"} {
		if !strings.Contains(out, want) {
			t.Errorf("status lacks %q:\n%s", want, out)
		}
	}
}

// TestPrintStatusNamesGPUs: each GPU's line (device, code, memory and cap, arithmetic and
// why, as the backend reports it) is shown.
func TestPrintStatusNamesGPUs(t *testing.T) {
	line := "NVIDIA H200 (sm_90, 132 SMs, sm_90 code); memory 139.8 GiB, capped at 22.0 GiB; arithmetic fp64 (auto: FP64 at 1/2 of the FP32 rate on sm_90)"
	st := &api.Status{Backend: "gpu: gpu0 (NVIDIA H200)", Devices: []string{line}}
	var sb strings.Builder
	printStatus(&sb, st)
	if !strings.Contains(sb.String(), "gpu0: "+line+"\n") {
		t.Errorf("status lacks the GPU line:\n%s", sb.String())
	}
}
