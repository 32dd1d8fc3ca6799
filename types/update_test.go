package types

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/filecoin-project/go-state-types/abi"
)

// TestUpdateParamFileNamesMatchParametersJSON recomputes the five EmptySectorUpdate
// parameter names from the table and finds each in upstream parameters.json with its
// sector size.
func TestUpdateParamFileNamesMatchParametersJSON(t *testing.T) {
	var manifest map[string]struct {
		SectorSize uint64 `json:"sector_size"`
	}
	if err := json.Unmarshal(readUpstream(t, "parameters.json"), &manifest); err != nil {
		t.Fatal(err)
	}
	want := 0
	for name := range manifest {
		if strings.HasPrefix(name, "v28-empty-sector-update-merkletree-") && strings.HasSuffix(name, ".params") {
			want++
		}
	}
	if want != 5 {
		t.Fatalf("parameters.json has %d EmptySectorUpdate .params entries, want 5", want)
	}
	for _, p := range UpdateProofs() {
		for _, ext := range []string{"params", "vk"} {
			e, ok := manifest[p.ParamFileName(ext)]
			if !ok {
				t.Errorf("%s: %s not in parameters.json", p.RustName, p.ParamFileName(ext))
				continue
			}
			if e.SectorSize != p.SectorSize {
				t.Errorf("%s: manifest sector size %d, want %d", p.RustName, e.SectorSize, p.SectorSize)
			}
		}
	}
}

// TestUpdateTable pins the per-size constants of storage-proofs-update constants.rs.
func TestUpdateTable(t *testing.T) {
	want := []struct {
		name               string
		parts, chals, apex int
		hDefault           int
		circuit            string
		proofLen           int
	}{
		{"StackedDrg2KiBV1", 1, 10, 8, 1, "snap-2k", 192},
		{"StackedDrg8MiBV1", 4, 10, 128, 10, "snap-8m", 768},
		{"StackedDrg512MiBV1", 16, 86, 128, 10, "snap-512m", 3072},
		{"StackedDrg32GiBV1", 16, 86, 128, 10, "snap-32g", 3072},
		{"StackedDrg64GiBV1", 16, 86, 128, 10, "snap-64g", 3072},
	}
	for i, w := range want {
		p, err := UpdateProof(abi.RegisteredUpdateProof(i))
		if err != nil {
			t.Fatal(err)
		}
		if p.RustName != w.name || p.PartitionCount != w.parts || p.ChallengesPerPartition != w.chals ||
			p.ApexLeafCount != w.apex || p.HDefault != w.hDefault || p.CircuitID != w.circuit || p.ProofLen != w.proofLen {
			t.Errorf("id %d: %+v, want %+v", i, *p, w)
		}
		// upstream h_select takes the first index of h in hs: 2 KiB has hs = [1; 6].
		wantSel := uint64(1 << 3)
		if i == 0 {
			wantSel = 1
		}
		if sel, ok := p.HSelect(p.HDefault); !ok || sel != wantSel {
			t.Errorf("%s: h_select(%d) = %d,%v, want %d", p.RustName, p.HDefault, sel, ok, wantSel)
		}
		if _, ok := p.HSelect(13); ok {
			t.Errorf("%s: h = 13 accepted", p.RustName)
		}
	}
	if _, err := UpdateProof(5); err == nil {
		t.Error("update proof 5 accepted")
	}
	if _, err := UpdateProof(-1); err == nil {
		t.Error("update proof -1 accepted")
	}
	u, err := UpdateProofForSeal(abi.RegisteredSealProof_StackedDrg32GiBV1_1)
	if err != nil || u.ID != abi.RegisteredUpdateProof_StackedDrg32GiBV1 {
		t.Errorf("update proof for 32 GiB V1_1 seal = %v, %v", u, err)
	}
}
