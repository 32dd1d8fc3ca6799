package refseal

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/filecoin-project/go-state-types/abi"

	"github.com/snarkpipe/snarkpipe/sealer"
	"github.com/snarkpipe/snarkpipe/types"
	"github.com/snarkpipe/snarkpipe/types/vanilla"
)

func checkSynthC1(t *testing.T, id abi.RegisteredSealProof) {
	t.Helper()
	info, _ := types.SealProof(id)
	start := time.Now()
	c1, sid, err := SynthC1(info, 42)
	if err != nil {
		t.Fatal(err)
	}
	gen := time.Since(start)
	back, err := vanilla.DecodeC1(vanilla.EncodeC1(c1))
	if err != nil {
		t.Fatal(err)
	}
	start = time.Now()
	if _, err := sealer.VerifyC1(back, &sid); err != nil {
		t.Fatalf("%s: synthetic C1 rejected: %v", info.RustName, err)
	}
	t.Logf("%s: generated in %v, verified in %v", info.RustName, gen, time.Since(start))
	again, _, err := SynthC1(info, 42)
	if err != nil {
		t.Fatal(err)
	}
	if string(vanilla.EncodeC1(again)) != string(vanilla.EncodeC1(c1)) {
		t.Fatal("same seed gave a different output")
	}
}

func TestSynthC1Small(t *testing.T) {
	for _, id := range []abi.RegisteredSealProof{
		abi.RegisteredSealProof_StackedDrg2KiBV1, abi.RegisteredSealProof_StackedDrg2KiBV1_1, abi.RegisteredSealProof_StackedDrg8MiBV1_1,
		abi.RegisteredSealProof_StackedDrg512MiBV1, abi.RegisteredSealProof_StackedDrg512MiBV1_1,
	} {
		checkSynthC1(t, id)
	}
}

// TestSynthC1Production generates and verifies 32 GiB and 64 GiB C1 outputs (180 challenges
// each, several seconds); skipped under -short.
func TestSynthC1Production(t *testing.T) {
	if testing.Short() {
		t.Skip("32/64 GiB synthetic C1 takes seconds; run without -short")
	}
	for _, id := range []abi.RegisteredSealProof{
		abi.RegisteredSealProof_StackedDrg32GiBV1, abi.RegisteredSealProof_StackedDrg32GiBV1_1,
		abi.RegisteredSealProof_StackedDrg64GiBV1, abi.RegisteredSealProof_StackedDrg64GiBV1_1,
	} {
		checkSynthC1(t, id)
	}
}

func TestSynthC1RefusesCommRDerivedChallenges(t *testing.T) {
	for _, id := range []abi.RegisteredSealProof{abi.RegisteredSealProof_StackedDrg32GiBV1_1_Feat_SyntheticPoRep, abi.RegisteredSealProof_StackedDrg32GiBV1_2_Feat_NiPoRep} {
		info, _ := types.SealProof(id)
		if _, _, err := SynthC1(info, 1); !errors.Is(err, ErrNotSynthesizable) {
			t.Fatalf("%s: got %v, want ErrNotSynthesizable", info.RustName, err)
		}
	}
}

// TestSynthC1ZeroCommD: the synthetic sector is all zero data, so its comm_d is the
// zero-data root of spec §10.
func TestSynthC1ZeroCommD(t *testing.T) {
	want := map[abi.RegisteredSealProof]string{
		abi.RegisteredSealProof_StackedDrg2KiBV1_1:   "fc7e928296e516faade986b28f92d44a4f24b935485223376a799027bc18f833",
		abi.RegisteredSealProof_StackedDrg8MiBV1_1:   "65f29e5d98d246c38b388cfc06db1f6b021303c5a289000bdce832a9c3ec421c",
		abi.RegisteredSealProof_StackedDrg512MiBV1_1: "39560e7b13a93b07a243fd2720ffa7cb3e1d2e505ab3629e79f46313512cda06",
		abi.RegisteredSealProof_StackedDrg32GiBV1_1:  "077e5fde35c50a9303a55009e3498a4ebedff39c42b710b730d8ec7ac7afa63e",
		abi.RegisteredSealProof_StackedDrg64GiBV1_1:  "e64005a6bfe3777953b8ad6ef93f0fca1049b2041654f2a411f7702799cece02",
	}
	for id, w := range want {
		info, _ := types.SealProof(id)
		tr, err := buildSparseTree(true, types.TreeShape{Base: 2}, info.Nodes(), map[uint64]vanilla.Domain{}, vanilla.Domain{})
		if err != nil {
			t.Fatal(err)
		}
		root := tr.Root()
		if got := hex.EncodeToString(root[:]); got != w {
			t.Errorf("%s: zero comm_d %s, want %s", info.RustName, got, w)
		}
	}
}

func checkSynthPoSt(t *testing.T, id abi.RegisteredPoStProof) {
	t.Helper()
	info, _ := types.PoStProof(id)
	start := time.Now()
	sp, err := SynthPoStProofs(info, 7)
	if err != nil {
		t.Fatal(err)
	}
	gen := time.Since(start)
	pub := &sealer.PoStPublic{Proof: info, Randomness: sp.Randomness}
	for _, s := range sp.Sectors {
		pub.Sectors = append(pub.Sectors, sealer.PoStSector{Number: s.Number, CommR: s.CommR})
	}
	start = time.Now()
	if err := sealer.VerifyPoSt(pub, sp.Proofs); err != nil {
		t.Fatalf("%s: %v", info.RustName, err)
	}
	if len(sp.Proofs) != info.SectorsPerPartition || len(sp.Proofs[0].Sectors[0].InclusionProofs) != info.ChallengesPerSector {
		t.Fatalf("%s: %d sectors × %d challenges", info.RustName, len(sp.Proofs), len(sp.Proofs[0].Sectors[0].InclusionProofs))
	}
	t.Logf("%s: %d sectors generated in %v, verified in %v", info.RustName, len(sp.Proofs), gen, time.Since(start))
}

func TestSynthPoStSmall(t *testing.T) {
	for _, id := range []abi.RegisteredPoStProof{
		abi.RegisteredPoStProof_StackedDrgWinning2KiBV1, abi.RegisteredPoStProof_StackedDrgWindow2KiBV1_1,
		abi.RegisteredPoStProof_StackedDrgWinning32GiBV1,
	} {
		checkSynthPoSt(t, id)
	}
}

// TestSynthPoStWindowProduction generates full 32 GiB (2349 sectors) and 64 GiB (2300
// sectors) Window partitions; tens of seconds, skipped under -short.
func TestSynthPoStWindowProduction(t *testing.T) {
	if testing.Short() {
		t.Skip("full Window PoSt partitions take tens of seconds; run without -short")
	}
	checkSynthPoSt(t, abi.RegisteredPoStProof_StackedDrgWindow32GiBV1_1)
	checkSynthPoSt(t, abi.RegisteredPoStProof_StackedDrgWindow64GiBV1)
	checkSynthPoSt(t, abi.RegisteredPoStProof_StackedDrgWinning64GiBV1)
}

// TestSynthGolden pins the synthetic outputs of fixed seeds, so that a change to the
// generator (and so to every benchmark input made from a seed) is deliberate.
func TestSynthGolden(t *testing.T) {
	info, _ := types.SealProof(abi.RegisteredSealProof_StackedDrg512MiBV1_1)
	c1, _, err := SynthC1(info, 1)
	if err != nil {
		t.Fatal(err)
	}
	post, _ := types.PoStProof(abi.RegisteredPoStProof_StackedDrgWinning2KiBV1)
	sp, err := SynthPoStProofs(post, 1)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{
		"c1 512MiB comm_r": hex.EncodeToString(c1.CommR[:]),
		"c1 512MiB json":   fmt.Sprintf("%x", sha256.Sum256(vanilla.EncodeC1(c1))),
		"winning 2KiB":     fmt.Sprintf("%x", sha256.Sum256(vanilla.EncodePoStSectorProof(sp.Proofs[0]))),
	}
	want := map[string]string{
		"c1 512MiB comm_r": "0951f0d136ed564b0d3d413426da2c61192c76f69dc3a7d71f0efd296d4b035e",
		"c1 512MiB json":   "3787283aec6c3befa5c7bb31ca9502e02bf60d9c1330d9305925d4f2718f2437",
		"winning 2KiB":     "2d4c54b2ddac6670177386fa99bbe521051f66c2f579cc17ef804d13913f6760",
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: %s, pinned %s", k, got[k], v)
		}
	}
}
