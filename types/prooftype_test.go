package types

import (
	"encoding/json"
	"sort"
	"strings"
	"testing"

	"github.com/filecoin-project/go-state-types/abi"
)

// TestParamFileNamesMatchParametersJSON recomputes the file names of every PoRep and PoSt
// circuit from the table and compares them with upstream parameters.json: all 15 circuits,
// with the sector size recorded there.
func TestParamFileNamesMatchParametersJSON(t *testing.T) {
	var manifest map[string]struct {
		SectorSize uint64 `json:"sector_size"`
	}
	if err := json.Unmarshal(readUpstream(t, "parameters.json"), &manifest); err != nil {
		t.Fatal(err)
	}
	want := map[string]uint64{}
	for name, e := range manifest {
		if strings.HasSuffix(name, ".params") && (strings.HasPrefix(name, "v28-stacked-proof-of-replication-") ||
			strings.HasPrefix(name, "v28-proof-of-spacetime-fallback-")) {
			want[name] = e.SectorSize
		}
	}
	if len(want) != 15 {
		t.Fatalf("parameters.json has %d PoRep/PoSt .params entries, want 15", len(want))
	}
	got := map[string]uint64{}
	for _, p := range SealProofs() {
		got[p.ParamFileName("params")] = p.SectorSize
	}
	for _, p := range PoStProofs() {
		got[p.ParamFileName("params")] = p.SectorSize
	}
	if len(got) != 15 {
		t.Fatalf("table yields %d distinct circuits, want 15: %v", len(got), keys(got))
	}
	for name, size := range want {
		if g, ok := got[name]; !ok {
			t.Errorf("missing %s", name)
		} else if g != size {
			t.Errorf("%s: sector size %d, want %d", name, g, size)
		}
		for _, ext := range []string{"vk"} {
			if _, ok := manifest[strings.TrimSuffix(name, "params")+ext]; !ok {
				t.Errorf("parameters.json lacks the .%s of %s", ext, name)
			}
		}
	}
}

func keys(m map[string]uint64) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// TestSealTableGolden pins the table against the values of spec circuits.md §2.1 and
// go-state-types, so that a wrong edit of one column is caught.
func TestSealTableGolden(t *testing.T) {
	type row struct {
		id                abi.RegisteredSealProof
		rust              string
		nodes             uint64
		layers, parts, ch int
		tree              string
		api               APIVersion
		mode              ChallengeMode
		proofLen          int
		circuit           string
	}
	rows := []row{
		{abi.RegisteredSealProof_StackedDrg2KiBV1, "StackedDrg2KiBV1", 64, 2, 1, 2, "8-0-0", APIVersion1_0_0, ChallengeInteractive, 192, "porep-2k"},
		{abi.RegisteredSealProof_StackedDrg8MiBV1_1, "StackedDrg8MiBV1_1", 1 << 18, 2, 1, 2, "8-0-0", APIVersion1_1_0, ChallengeInteractive, 192, "porep-8m"},
		{abi.RegisteredSealProof_StackedDrg32GiBV1, "StackedDrg32GiBV1", 1 << 30, 11, 10, 18, "8-8-0", APIVersion1_0_0, ChallengeInteractive, 1920, "porep-32g"},
		{abi.RegisteredSealProof_StackedDrg32GiBV1_1, "StackedDrg32GiBV1_1", 1 << 30, 11, 10, 18, "8-8-0", APIVersion1_1_0, ChallengeInteractive, 1920, "porep-32g"},
		{abi.RegisteredSealProof_StackedDrg64GiBV1_1, "StackedDrg64GiBV1_1", 1 << 31, 11, 10, 18, "8-8-2", APIVersion1_1_0, ChallengeInteractive, 1920, "porep-64g"},
		{abi.RegisteredSealProof_StackedDrg32GiBV1_1_Feat_SyntheticPoRep, "StackedDrg32GiBV1_1_Feat_SyntheticPoRep", 1 << 30, 11, 10, 18, "8-8-0", APIVersion1_2_0, ChallengeSynthetic, 1920, "porep-32g"},
		{abi.RegisteredSealProof_StackedDrg512MiBV1_1_Feat_SyntheticPoRep, "StackedDrg512MiBV1_1_Feat_SyntheticPoRep", 1 << 24, 2, 1, 2, "8-0-0", APIVersion1_2_0, ChallengeSynthetic, 192, "porep-512m"},
		{abi.RegisteredSealProof_StackedDrg2KiBV1_2_Feat_NiPoRep, "StackedDrg2KiBV1_2_Feat_NonInteractivePoRep", 64, 2, 13, 2, "8-0-0", APIVersion1_2_0, ChallengeNonInteractive, 14164, "porep-2k"},
		{abi.RegisteredSealProof_StackedDrg64GiBV1_2_Feat_NiPoRep, "StackedDrg64GiBV1_2_Feat_NonInteractivePoRep", 1 << 31, 11, 126, 18, "8-8-2", APIVersion1_2_0, ChallengeNonInteractive, 23092, "porep-64g"},
	}
	for _, r := range rows {
		p, err := SealProof(r.id)
		if err != nil {
			t.Fatal(err)
		}
		if p.RustName != r.rust || p.Nodes() != r.nodes || p.Layers != r.layers || p.PartitionCount != r.parts ||
			p.ChallengesPerPartition != r.ch || p.Tree.String() != r.tree || p.APIVersion != r.api || p.Mode != r.mode ||
			p.ProofLen != r.proofLen || p.CircuitID != r.circuit {
			t.Errorf("id %d: got %+v", r.id, *p)
		}
		if p.PoRepID[0] != byte(r.id) || p.PoRepID[1] != 0 {
			t.Errorf("id %d: porep id %x", r.id, p.PoRepID)
		}
		back, err := SealProofByRustName(r.rust)
		if err != nil || back.ID != r.id {
			t.Errorf("SealProofByRustName(%q) = %v, %v", r.rust, back, err)
		}
	}
}

// TestSealTableAgreesWithStateTypes checks sector sizes and proof sizes against go-state-types,
// the chain's own table. (Window PoSt partition sizes live in go-state-types/builtin, whose
// import closure is too heavy for types; TestPoStTableGolden pins them.)
func TestSealTableAgreesWithStateTypes(t *testing.T) {
	for _, p := range SealProofs() {
		size, err := p.ID.SectorSize()
		if err != nil {
			t.Fatal(err)
		}
		if uint64(size) != p.SectorSize {
			t.Errorf("%s: sector size %d, go-state-types %d", p.RustName, p.SectorSize, size)
		}
		proofSize, err := p.ID.ProofSize()
		if err != nil {
			t.Fatal(err)
		}
		if int(proofSize) != p.ProofLen {
			t.Errorf("%s: proof len %d, go-state-types %d", p.RustName, p.ProofLen, proofSize)
		}
		if p.ShapeName != "StackedDrg"+p.RustLabel+"V1" || p.TotalChallenges() < p.MinChallenges {
			t.Errorf("%s: shape %s, %d challenges", p.RustName, p.ShapeName, p.TotalChallenges())
		}
	}
	for _, p := range PoStProofs() {
		size, err := p.ID.SectorSize()
		if err != nil {
			t.Fatal(err)
		}
		if uint64(size) != p.SectorSize {
			t.Errorf("%s: sector size %d, go-state-types %d", p.RustName, p.SectorSize, size)
		}
	}
}

func TestPoStTableGolden(t *testing.T) {
	cases := []struct {
		id        abi.RegisteredPoStProof
		rust      string
		api       APIVersion
		c, s      int
		circuitID string
	}{
		{abi.RegisteredPoStProof_StackedDrgWinning32GiBV1, "StackedDrgWinning32GiBV1", APIVersion1_0_0, 1, 66, "winning-32g"},
		{abi.RegisteredPoStProof_StackedDrgWindow32GiBV1, "StackedDrgWindow32GiBV1", APIVersion1_0_0, 10, 2349, "wpost-32g"},
		{abi.RegisteredPoStProof_StackedDrgWindow32GiBV1_1, "StackedDrgWindow32GiBV1_2", APIVersion1_2_0, 10, 2349, "wpost-32g"},
		{abi.RegisteredPoStProof_StackedDrgWindow64GiBV1_1, "StackedDrgWindow64GiBV1_2", APIVersion1_2_0, 10, 2300, "wpost-64g"},
		{abi.RegisteredPoStProof_StackedDrgWindow2KiBV1, "StackedDrgWindow2KiBV1", APIVersion1_0_0, 10, 2, "wpost-2k"},
	}
	for _, c := range cases {
		p, err := PoStProof(c.id)
		if err != nil {
			t.Fatal(err)
		}
		if p.RustName != c.rust || p.APIVersion != c.api || p.CircuitChallengeCount != c.c || p.CircuitSectorCount != c.s || p.CircuitID != c.circuitID {
			t.Errorf("id %d: got %+v", c.id, *p)
		}
	}
}

func TestUnknownIDsRejected(t *testing.T) {
	for _, id := range []abi.RegisteredSealProof{-1, 20, 1 << 40} {
		if _, err := SealProof(id); err == nil {
			t.Errorf("seal id %d accepted", id)
		}
	}
	for _, id := range []abi.RegisteredPoStProof{-1, 15} {
		if _, err := PoStProof(id); err == nil {
			t.Errorf("post id %d accepted", id)
		}
	}
	if _, err := SealProofByRustName("StackedDrg1KiBV1"); err == nil {
		t.Error("unknown name accepted")
	}
	if _, err := SectorShapeOf(4096); err == nil {
		t.Error("4 KiB accepted")
	}
}

func TestAPIVersionStrings(t *testing.T) {
	for _, s := range []string{"V1_0_0", "V1_1_0", "V1_2_0"} {
		v, err := ParseAPIVersion(s)
		if err != nil || v.String() != s {
			t.Errorf("%s: %v %v", s, v, err)
		}
	}
	if _, err := ParseAPIVersion("V1_3_0"); err == nil {
		t.Error("V1_3_0 accepted")
	}
}

func TestPoRepConfigChallenges(t *testing.T) {
	for _, p := range SealProofs() {
		n, err := p.Config().ChallengesPerPartition()
		if err != nil || n != p.ChallengesPerPartition {
			t.Errorf("%s: %d %v, table %d", p.RustName, n, err, p.ChallengesPerPartition)
		}
	}
	if _, err := (PoRepConfig{SectorSize: SectorSize32GiB, Partitions: 1}).ChallengesPerPartition(); err == nil {
		t.Error("176 challenges in one partition accepted")
	}
	for in, want := range map[string]ChallengeMode{"": ChallengeInteractive, "SyntheticPoRep": ChallengeSynthetic, "NonInteractivePoRep": ChallengeNonInteractive} {
		var f []string
		if in != "" {
			f = []string{in}
		}
		if m, err := ParseFeatures(f); err != nil || m != want {
			t.Errorf("%q: %v %v", in, m, err)
		}
	}
	if _, err := ParseFeatures([]string{"Foo"}); err == nil {
		t.Error("unknown feature accepted")
	}
}
