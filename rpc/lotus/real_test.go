package lotus_test

import (
	"testing"
	"time"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/filecoin-project/go-state-types/abi"
	"github.com/filecoin-project/lotus/storage/sealer/storiface"

	"github.com/snarkpipe/snarkpipe/prover"
	"github.com/snarkpipe/snarkpipe/rpc/lotus"
	"github.com/snarkpipe/snarkpipe/sealer"
	"github.com/snarkpipe/snarkpipe/sealer/porep"
	"github.com/snarkpipe/snarkpipe/sealer/post"
	"github.com/snarkpipe/snarkpipe/sealer/refseal"
	"github.com/snarkpipe/snarkpipe/sealer/sealertest"
	"github.com/snarkpipe/snarkpipe/types"
	"github.com/snarkpipe/snarkpipe/types/vanilla"
)

// newService starts the real proving service: CPU backend, dev parameters from the shared
// test cache (built once per machine).
func newService(t testing.TB) *sealer.Service {
	s, _ := sealertest.CPUService(t, sealer.DefaultConfig(), sealer.Deps{})
	return s
}

// sealed2K seals a 2 KiB sector with the reference sealer.
func sealed2K(t testing.TB, num abi.SectorNumber) *refseal.Sector {
	t.Helper()
	info, err := types.SealProof(abi.RegisteredSealProof_StackedDrg2KiBV1_1)
	if err != nil {
		t.Fatal(err)
	}
	data := make([]byte, info.SectorSize)
	for i := range data {
		data[i] = byte(i*7) + byte(num)
	}
	for i := 31; i < len(data); i += 32 {
		data[i] &= 0x3f
	}
	s, err := refseal.Seal(info, abi.SectorID{Miner: 1000, Number: num}, [32]byte{1, 2, byte(num)}, data)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// postVanilla is the sector's vanilla proof at a position of the PoSt, and its decoded form.
func postVanilla(t testing.TB, s *refseal.Sector, pt abi.RegisteredPoStProof, rnd []byte, index int) ([]byte, *vanilla.FallbackPoStSectorProof) {
	t.Helper()
	info, err := types.PoStProof(pt)
	if err != nil {
		t.Fatal(err)
	}
	v, err := s.PoStReplica().Vanilla(info, rnd, index)
	if err != nil {
		t.Fatal(err)
	}
	return vanilla.EncodePoStSectorProof(v), v
}

// TestRealPoStThroughMinerAndStorage: Window PoSt (one sector unreadable → Skipped, then the
// partition without it) and Winning PoSt proved by the real service from vanilla proofs
// served by the storage endpoint; every proof verifies against the dev verifying key with
// public inputs computed independently of the service.
func TestRealPoStThroughMinerAndStorage(t *testing.T) {
	rnd := make([]byte, 32)
	for i := range rnd {
		rnd[i] = byte(200 - i)
	}
	a := sealed2K(t, 21) // sector 22 exists only as an unreadable store entry
	const window, winning = abi.RegisteredPoStProof_StackedDrgWindow2KiBV1_1, abi.RegisteredPoStProof_StackedDrgWinning2KiBV1
	windowA, decodedWindowA := postVanilla(t, a, window, rnd, 0)
	winningA, decodedWinningA := postVanilla(t, a, winning, rnd, 0)

	m := newTestMiner(t)
	windowStore, winningStore := newTestStorage(t), newTestStorage(t)
	serveSectors(m, windowStore, map[abi.SectorNumber][]byte{21: windowA})
	windowStore.broken[22] = true
	m.stores[22] = m.stores[21]
	w, _ := startWorker(t, testConfig(), t.TempDir(), newService(t), m)
	registerAll(t, w, m, lotus.AllRoles)
	ctx := testCtx(t, 5*time.Minute)

	wd := m.worker(w.url(lotus.RoleWindow))
	res, err := wd.GenerateWindowPoSt(ctx, window, 1000, challenges(21, 22), 0, rnd)
	if err != nil || len(res.Skipped) != 1 || res.Skipped[0].Number != 22 || res.PoStProofs.ProofBytes != nil {
		t.Fatalf("window with an unreadable sector: %+v, %v", res, err)
	}
	start := time.Now()
	res, err = wd.GenerateWindowPoSt(ctx, window, 1000, challenges(21), 0, rnd)
	if err != nil || len(res.Skipped) != 0 || res.PoStProofs.PoStProof != window {
		t.Fatalf("window: %+v, %v", res, err)
	}
	t.Logf("Window PoSt through the worker in %v", time.Since(start))
	verifyPoSt(t, window, rnd, decodedWindowA, res.PoStProofs.ProofBytes)

	m.mu.Lock()
	m.stores[21] = []storiface.SectorStorageInfo{{ID: "win", BaseURLs: []string{winningStore.baseURL()}}}
	m.mu.Unlock()
	winningStore.vanilla[21] = winningA
	start = time.Now()
	proofs, err := m.worker(w.url(lotus.RoleWinning)).GenerateWinningPoSt(ctx, winning, 1000, challenges(21), rnd)
	if err != nil || len(proofs) != 1 || proofs[0].PoStProof != winning {
		t.Fatalf("winning: %+v, %v", proofs, err)
	}
	t.Logf("Winning PoSt through the worker in %v", time.Since(start))
	verifyPoSt(t, winning, rnd, decodedWinningA, proofs[0].ProofBytes)
}

// TestRealSealCommit2ThroughMiner proves a 2 KiB C2 through the wire: SealCommit2 →
// CallID → ReturnSealCommit2 with a proof that verifies. Skipped with -short: a 2 KiB PoRep
// proof on the CPU (2.7 M constraints) takes minutes on 2 cores.
func TestRealSealCommit2ThroughMiner(t *testing.T) {
	if testing.Short() {
		t.Skip("2 KiB PoRep proof on the CPU: skipped with -short")
	}
	s := sealed2K(t, 9)
	c1, err := s.C1([32]byte{9, 8, 7})
	if err != nil {
		t.Fatal(err)
	}
	m := newTestMiner(t)
	w, _ := startWorker(t, testConfig(), t.TempDir(), newService(t), m)
	registerAll(t, w, m, []lotus.Role{lotus.RoleC2})
	ctx := testCtx(t, 20*time.Minute)
	sector := storiface.SectorRef{ID: abi.SectorID{Miner: 1000, Number: 9}, ProofType: abi.RegisteredSealProof_StackedDrg2KiBV1_1}
	ci, err := m.worker(w.url(lotus.RoleC2)).SealCommit2(ctx, sector, vanilla.EncodeC1(c1))
	if err != nil {
		t.Fatal(err)
	}
	r := m.waitReturn(t, 20*time.Minute)
	if r.ID != ci || r.Err != nil {
		t.Fatalf("returned %+v", r)
	}
	info, _ := types.SealProof(sector.ProofType)
	public, err := porep.SealPublicInputs(info, c1.ReplicaID, c1.CommD, c1.CommR, c1.Seed, 0)
	if err != nil {
		t.Fatal(err)
	}
	blank, err := porep.Blank(porep.ConfigFor(info))
	if err != nil {
		t.Fatal(err)
	}
	verifyProofs(t, blank, r.Proof, [][]fr.Element{public})
}

func verifyPoSt(t testing.TB, pt abi.RegisteredPoStProof, rnd []byte, v *vanilla.FallbackPoStSectorProof, proofBytes []byte) {
	t.Helper()
	info, _ := types.PoStProof(pt)
	masked, ok := types.MaskRandomness(rnd)
	if !ok {
		t.Fatal("randomness is not 32 bytes")
	}
	public, err := post.PublicInputs(info, masked, []post.PublicSector{{ID: v.SectorID, CommR: v.CommR}}, 0)
	if err != nil {
		t.Fatal(err)
	}
	blank, err := post.Blank(post.ConfigFor(info))
	if err != nil {
		t.Fatal(err)
	}
	verifyProofs(t, blank, proofBytes, [][]fr.Element{public})
}

// verifyProofs checks concatenated proofs against the dev verifying key, and that a
// changed public input fails.
func verifyProofs(t testing.TB, c prover.Circuit, b []byte, public [][]fr.Element) {
	t.Helper()
	sealertest.VerifyDevProofs(t, c, b, public)
}
