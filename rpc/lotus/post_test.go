package lotus_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/filecoin-project/go-state-types/abi"
	"github.com/filecoin-project/lotus/storage/sealer/storiface"

	"github.com/snarkpipe/snarkpipe/rpc/lotus"
)

const testWindow2K = abi.RegisteredPoStProof_StackedDrgWindow2KiBV1_1

// challenges builds the miner's PostSectorChallenge list for sector numbers.
func challenges(nums ...abi.SectorNumber) []storiface.PostSectorChallenge {
	out := make([]storiface.PostSectorChallenge, len(nums))
	for i, n := range nums {
		out[i] = storiface.PostSectorChallenge{SealProof: abi.RegisteredSealProof_StackedDrg2KiBV1_1, SectorNumber: n, SealedCID: testCID, Challenge: []uint64{uint64(n), 42}}
	}
	return out
}

// serveSectors makes the storage endpoint hold the sectors and the miner point at it.
func serveSectors(m *testMiner, st *testStorage, vanilla map[abi.SectorNumber][]byte) {
	m.mu.Lock()
	st.mu.Lock()
	for n, v := range vanilla {
		st.vanilla[n] = v
		m.stores[n] = []storiface.SectorStorageInfo{{ID: "store-1", URLs: []string{st.baseURL()}, BaseURLs: []string{st.baseURL()}, CanStore: true}}
	}
	st.mu.Unlock()
	m.mu.Unlock()
}

// TestWindowPoStSkipsUnreadable: with one sector unreadable the partition is answered with
// that sector in Skipped, no proof and no error (the service is not asked); proving again
// without it succeeds with the vanilla proofs in challenge order.
func TestWindowPoStSkipsUnreadable(t *testing.T) {
	m := newTestMiner(t)
	st := newTestStorage(t)
	serveSectors(m, st, map[abi.SectorNumber][]byte{1: []byte("vanilla-1"), 2: []byte("vanilla-2"), 3: []byte("vanilla-3")})
	st.broken[2] = true
	p := &fakeProver{}
	w, _ := startWorker(t, testConfig(), t.TempDir(), p, m)
	ctx := testCtx(t, 30*time.Second)
	wc := dialWorker(t, w.url(lotus.RoleWindow), minerToken)
	rnd := bytes.Repeat([]byte{7}, 32)

	res, err := wc.GenerateWindowPoSt(ctx, testWindow2K, 1000, challenges(1, 2, 3), 0, rnd)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Skipped) != 1 || res.Skipped[0] != (abi.SectorID{Miner: 1000, Number: 2}) || res.PoStProofs.ProofBytes != nil {
		t.Fatalf("result %+v, want sector 2 skipped and no proof", res)
	}
	if len(p.postReq) != 0 {
		t.Fatal("service asked to prove a partition with a skipped sector")
	}

	res, err = wc.GenerateWindowPoSt(ctx, testWindow2K, 1000, challenges(3, 1), 5, rnd)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Skipped) != 0 || res.PoStProofs.PoStProof != testWindow2K || len(res.PoStProofs.ProofBytes) != 192 {
		t.Fatalf("result %+v", res)
	}
	req := p.postReq[0]
	if string(req.VanillaProofs[0]) != "vanilla-3" || string(req.VanillaProofs[1]) != "vanilla-1" || req.Miner != 1000 || req.Partition != 5 || !bytes.Equal(req.Randomness, rnd) || req.ProofType != testWindow2K {
		t.Fatalf("service request %+v", req)
	}
	// The storage endpoint got lotus' SingleVanillaParams with the miner's challenge.
	var got struct {
		Miner     abi.ActorID
		Sector    storiface.PostSectorChallenge
		ProofType abi.RegisteredPoStProof
	}
	if err := json.Unmarshal(st.params[len(st.params)-1], &got); err != nil || got.Miner != 1000 || got.ProofType != testWindow2K || len(got.Sector.Challenge) != 2 || got.Sector.Challenge[1] != 42 || !got.Sector.SealedCID.Equals(testCID) {
		t.Fatalf("vanilla/single params %s: %v", st.params[len(st.params)-1], err)
	}
}

// TestWindowPoStWireShape posts spec §2.2's GenerateWindowPoSt example and checks the
// answer's JSON keys.
func TestWindowPoStWireShape(t *testing.T) {
	m := newTestMiner(t)
	st := newTestStorage(t)
	serveSectors(m, st, map[abi.SectorNumber][]byte{9: []byte("vanilla-9")})
	w, _ := startWorker(t, testConfig(), t.TempDir(), &fakeProver{}, m)
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":3,"method":"Filecoin.GenerateWindowPoSt","params":[13,1000,[{"SealProof":8,"SectorNumber":9,"SealedCID":{"/":"%s"},"Challenge":[42,7],"Update":false}],0,"%s"]}`,
		testCID, "BwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwc=")
	raw := postRaw(t, w.url(lotus.RoleWindow), body)
	var answer struct {
		Result struct {
			PoStProofs map[string]json.RawMessage
			Skipped    []abi.SectorID
		}
	}
	if err := json.Unmarshal(raw, &answer); err != nil || string(answer.Result.PoStProofs["PoStProof"]) != "13" || len(answer.Result.Skipped) != 0 {
		t.Fatalf("answer %s: %v", raw, err)
	}
	if !strings.Contains(string(raw), `"Skipped":[]`) {
		t.Fatalf("answer %s: Skipped should be []", raw)
	}
}

// TestWindowPoStBoundedReads: at most PoStParallelReads reads are in flight, a sector whose
// store hangs is skipped after PoStReadTimeout, and a store answering 404 is passed over
// for the next one.
func TestWindowPoStBoundedReads(t *testing.T) {
	m := newTestMiner(t)
	st := newTestStorage(t)
	empty := newTestStorage(t) // has nothing: 404
	vanilla := map[abi.SectorNumber][]byte{}
	var nums []abi.SectorNumber
	for n := abi.SectorNumber(1); n <= 12; n++ {
		vanilla[n] = []byte(fmt.Sprintf("vanilla-%d", n))
		nums = append(nums, n)
	}
	serveSectors(m, st, vanilla)
	m.stores[5] = append([]storiface.SectorStorageInfo{{ID: "empty", BaseURLs: []string{empty.baseURL()}}}, m.stores[5]...)
	st.hang[11] = true
	st.delay = 20 * time.Millisecond
	cfg := testConfig()
	cfg.PoStParallelReads = 3
	cfg.PoStReadTimeout = 300 * time.Millisecond
	w, _ := startWorker(t, cfg, t.TempDir(), &fakeProver{}, m)
	ctx := testCtx(t, 30*time.Second)
	res, err := dialWorker(t, w.url(lotus.RoleWindow), minerToken).GenerateWindowPoSt(ctx, testWindow2K, 1000, challenges(nums...), 0, make([]byte, 32))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Skipped) != 1 || res.Skipped[0].Number != 11 {
		t.Fatalf("skipped %v, want sector 11 (hung)", res.Skipped)
	}
	if n := st.maxInflight.Load(); n > 3 || n < 2 {
		t.Fatalf("%d reads in flight at once, want 2..3", n)
	}
	if len(empty.params) != 1 {
		t.Fatalf("the empty store was asked %d times, want once (sector 5)", len(empty.params))
	}
}

// TestWinningPoStNeedsEverySector: Winning PoSt proves from the fetched vanilla proof, and
// fails (no partial answer exists) when a sector cannot be read.
func TestWinningPoStNeedsEverySector(t *testing.T) {
	m := newTestMiner(t)
	st := newTestStorage(t)
	serveSectors(m, st, map[abi.SectorNumber][]byte{4: []byte("vanilla-4")})
	p := &fakeProver{}
	w, _ := startWorker(t, testConfig(), t.TempDir(), p, m)
	ctx := testCtx(t, 30*time.Second)
	wc := dialWorker(t, w.url(lotus.RoleWinning), minerToken)
	const winning = abi.RegisteredPoStProof_StackedDrgWinning2KiBV1
	proofs, err := wc.GenerateWinningPoSt(ctx, winning, 1000, challenges(4), make([]byte, 32))
	if err != nil || len(proofs) != 1 || proofs[0].PoStProof != winning || len(proofs[0].ProofBytes) != 192 {
		t.Fatalf("proofs %+v, %v", proofs, err)
	}
	if string(p.postReq[0].VanillaProofs[0]) != "vanilla-4" {
		t.Fatalf("service got %q", p.postReq[0].VanillaProofs[0])
	}
	if _, err := wc.GenerateWinningPoSt(ctx, winning, 1000, challenges(5), make([]byte, 32)); err == nil || !strings.Contains(err.Error(), "sector 5") {
		t.Fatalf("unreadable winning sector: %v", err)
	}
	if _, err := dialWorker(t, w.url(lotus.RoleWindow), minerToken).GenerateWinningPoSt(ctx, winning, 1000, challenges(4), make([]byte, 32)); err == nil {
		t.Fatal("wdpost role proved Winning PoSt")
	}
}

// TestWindowPoStUpdatedSector: a snapped sector (Update) is looked up by its update files,
// as lotus' paths.Remote does.
func TestWindowPoStUpdatedSector(t *testing.T) {
	m := newTestMiner(t)
	st := newTestStorage(t)
	serveSectors(m, st, map[abi.SectorNumber][]byte{6: []byte("vanilla-6"), 8: []byte("vanilla-8")})
	m.updated[8] = true
	w, _ := startWorker(t, testConfig(), t.TempDir(), &fakeProver{}, m)
	ch := challenges(6, 8)
	ch[1].Update = true
	res, err := dialWorker(t, w.url(lotus.RoleWindow), minerToken).GenerateWindowPoSt(testCtx(t, 30*time.Second), testWindow2K, 1000, ch, 0, make([]byte, 32))
	if err != nil || len(res.Skipped) != 0 || len(res.PoStProofs.ProofBytes) != 192 {
		t.Fatalf("result %+v, %v", res, err)
	}
	ch[1].Update = false // the miner would refuse the sealed-file lookup of a snapped sector
	res, err = dialWorker(t, w.url(lotus.RoleWindow), minerToken).GenerateWindowPoSt(testCtx(t, 30*time.Second), testWindow2K, 1000, ch, 0, make([]byte, 32))
	if err != nil || len(res.Skipped) != 1 || res.Skipped[0].Number != 8 {
		t.Fatalf("result %+v, %v", res, err)
	}
}
