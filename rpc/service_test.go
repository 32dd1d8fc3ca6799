package rpc

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/filecoin-project/go-state-types/abi"

	"github.com/snarkpipe/snarkpipe/prover/groth16"
	"github.com/snarkpipe/snarkpipe/rpc/api"
	"github.com/snarkpipe/snarkpipe/sealer"
	"github.com/snarkpipe/snarkpipe/sealer/refseal"
	"github.com/snarkpipe/snarkpipe/sealer/sealertest"
	"github.com/snarkpipe/snarkpipe/types"
	"github.com/snarkpipe/snarkpipe/types/vanilla"
)

// sector2KiB is a 2 KiB sector sealed by the reference sealer: its C1 output (decoded, so
// that cases can tamper with it) and PoSt vanilla proofs.
type sector2KiB struct {
	id              abi.SectorID
	c1              *vanilla.SealCommitPhase1Output
	winning, window []byte
	rnd             []byte
}

func newSector2KiB(t testing.TB) *sector2KiB {
	t.Helper()
	info, _ := types.SealProof(abi.RegisteredSealProof_StackedDrg2KiBV1_1)
	data := make([]byte, info.SectorSize)
	for i := range data {
		data[i] = byte(i*5 + 3)
	}
	for i := 31; i < len(data); i += 32 {
		data[i] &= 0x3f
	}
	out := &sector2KiB{id: abi.SectorID{Miner: 1001, Number: 7}, rnd: make([]byte, 32)}
	s, err := refseal.Seal(info, out.id, [32]byte{4}, data)
	if err != nil {
		t.Fatal(err)
	}
	if out.c1, err = s.C1([32]byte{6}); err != nil {
		t.Fatal(err)
	}
	for i := range out.rnd {
		out.rnd[i] = byte(i + 100)
	}
	for _, pt := range []abi.RegisteredPoStProof{abi.RegisteredPoStProof_StackedDrgWinning2KiBV1, abi.RegisteredPoStProof_StackedDrgWindow2KiBV1_1} {
		pinfo, _ := types.PoStProof(pt)
		v, err := s.PoStReplica().Vanilla(pinfo, out.rnd, 0)
		if err != nil {
			t.Fatal(err)
		}
		if pinfo.Kind == types.PoStWinning {
			out.winning = vanilla.EncodePoStSectorProof(v)
		} else {
			out.window = vanilla.EncodePoStSectorProof(v)
		}
	}
	return out
}

// serveService runs a real sealer.Service (CPU pipeline, dev parameters from the shared
// test cache) behind the API on 127.0.0.1:0.
func serveService(t testing.TB) (string, *sealer.Service) {
	t.Helper()
	svc, _ := sealertest.CPUService(t, sealer.DefaultConfig(), sealer.Deps{})
	return serve(t, DefaultConfig(), svc), svc
}

// TestBadInputOverSockets sends the documented bad requests to a real service: each gets
// its code and a message naming the problem before any proving, and the daemon keeps
// serving.
func TestBadInputOverSockets(t *testing.T) {
	sec := newSector2KiB(t)
	url, _ := serveService(t)
	c := dial(t, url, token(t, api.PermWrite))
	ctx := context.Background()
	good := vanilla.EncodeC1(sec.c1)
	flipped, _ := vanilla.DecodeC1(good)
	flipped.VanillaProofs[0][1].CommDProofs.Base[2].Hashes[0][5] ^= 0x10
	c2 := func(pt abi.RegisteredSealProof, c1 []byte) api.SealCommit2Request {
		return api.SealCommit2Request{Sector: sec.id, ProofType: pt, C1: c1}
	}
	for _, tc := range []struct {
		name      string
		req       api.SealCommit2Request
		code      api.Code
		msg       string
		proofType string
	}{
		{"truncated C1", c2(abi.RegisteredSealProof_StackedDrg2KiBV1_1, good[:len(good)/2]), api.CodeInvalidInput, "malformed input", "StackedDrg2KiBV1_1"},
		{"flipped Merkle path byte", c2(abi.RegisteredSealProof_StackedDrg2KiBV1_1, vanilla.EncodeC1(flipped)), api.CodeInvalidInput, "partition 0 challenge 1", "StackedDrg2KiBV1_1"},
		{"wrong proof type", c2(abi.RegisteredSealProof_StackedDrg2KiBV1, good), api.CodeInvalidInput, `C1 output is for "StackedDrg2KiBV1_1"`, "StackedDrg2KiBV1"},
		{"wrong sector", api.SealCommit2Request{Sector: abi.SectorID{Miner: 1001, Number: 8}, ProofType: abi.RegisteredSealProof_StackedDrg2KiBV1_1, C1: good}, api.CodeInvalidInput, "replica_id", "StackedDrg2KiBV1_1"},
		{"unknown proof type", c2(99, good), api.CodeInvalidInput, "unknown registered seal proof", ""},
		{"NI-PoRep", c2(abi.RegisteredSealProof_StackedDrg2KiBV1_2_Feat_NiPoRep, good), api.CodeUnsupported, "SnarkPack", "StackedDrg2KiBV1_2_Feat_NonInteractivePoRep"},
		{"32 GiB on the CPU", c2(abi.RegisteredSealProof_StackedDrg32GiBV1_1, good), api.CodeUnsupported, "need a GPU", "StackedDrg32GiBV1_1"},
	} {
		_, err := c.SealCommit2(ctx, tc.req)
		e := wantCode(t, tc.name, err, tc.code)
		if !strings.Contains(e.Message, tc.msg) || e.Data.ProofType != tc.proofType {
			t.Errorf("%s: message %q proof type %q, want %q and %q", tc.name, e.Message, e.Data.ProofType, tc.msg, tc.proofType)
		}
	}
	// SnapDeals: a request without commitments or vanilla proofs is bad input, refused
	// before proving and named by its proof type.
	_, err := c.ProveReplicaUpdate2(ctx, api.ReplicaUpdateRequest{UpdateProofType: abi.RegisteredUpdateProof_StackedDrg2KiBV1})
	if e := wantCode(t, "SnapDeals", err, api.CodeInvalidInput); e.Data.ProofType != "StackedDrg2KiBV1" || !strings.Contains(e.Message, "comm_r_old") {
		t.Errorf("SnapDeals: proof type %q message %q", e.Data.ProofType, e.Message)
	}
	win := api.PoStRequest{ProofType: abi.RegisteredPoStProof_StackedDrgWinning2KiBV1, Miner: sec.id.Miner, Randomness: sec.rnd, VanillaProofs: [][]byte{sec.winning}}
	for _, tc := range []struct {
		name string
		edit func(r *api.PoStRequest)
		msg  string
	}{
		{"window type on the winning call", func(r *api.PoStRequest) { r.ProofType = abi.RegisteredPoStProof_StackedDrgWindow2KiBV1_1 }, "is a Window PoSt proof type"},
		{"short randomness", func(r *api.PoStRequest) { r.Randomness = r.Randomness[:31] }, "randomness of 31 bytes"},
		{"other randomness", func(r *api.PoStRequest) { r.Randomness = make([]byte, 32) }, "challenged node"},
		{"truncated vanilla", func(r *api.PoStRequest) { r.VanillaProofs = [][]byte{sec.winning[:100]} }, "vanilla proof 0"},
		{"no vanilla", func(r *api.PoStRequest) { r.VanillaProofs = nil }, "0 vanilla proofs"},
	} {
		req := win
		tc.edit(&req)
		_, err := c.GenerateWinningPoStWithVanilla(ctx, req)
		if e := wantCode(t, tc.name, err, api.CodeInvalidInput); !strings.Contains(e.Message, tc.msg) {
			t.Errorf("%s: message %q, want %q", tc.name, e.Message, tc.msg)
		}
	}
	st, err := c.Status(ctx)
	if err != nil {
		t.Fatalf("daemon stopped serving: %v", err)
	}
	if len(st.Recent) != 0 {
		t.Fatalf("bad requests became jobs: %+v", st.Recent)
	}
}

// TestPoStOverSockets proves 2 KiB Winning and Window PoSt through the Go client; the
// service verified each proof before returning it, and submit/await gives the same.
func TestPoStOverSockets(t *testing.T) {
	sec := newSector2KiB(t)
	url, _ := serveService(t)
	c := dial(t, url, token(t, api.PermWrite))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	win := api.PoStRequest{ProofType: abi.RegisteredPoStProof_StackedDrgWinning2KiBV1, Miner: sec.id.Miner, Randomness: sec.rnd, VanillaProofs: [][]byte{sec.winning}}
	r, err := c.GenerateWinningPoStWithVanilla(ctx, win)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Proofs) != 1 || len(r.Proofs[0].ProofBytes) != groth16.ProofSize || r.Job.State != "done" {
		t.Fatalf("winning: %+v", r)
	}
	wnd := api.PoStRequest{ProofType: abi.RegisteredPoStProof_StackedDrgWindow2KiBV1_1, Miner: sec.id.Miner, Randomness: sec.rnd, VanillaProofs: [][]byte{sec.window}}
	id, err := c.SubmitWindowPoSt(ctx, wnd)
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.AwaitJob(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if res.PoSt == nil || len(res.PoSt.Proofs[0].ProofBytes) != groth16.ProofSize || res.Info.Kind != "window-post" || len(res.Info.Timings) != 1 {
		t.Fatalf("window: %+v", res)
	}
	st, err := c.Status(ctx)
	if err != nil || st.Queues["window-post"].Done != 1 || st.Queues["winning-post"].Done != 1 {
		t.Fatalf("status %+v %v", st, err)
	}
}

// TestSealCommit2OverSockets proves a 2 KiB C2 through the Go client (2.7 M constraints:
// skipped with -short).
func TestSealCommit2OverSockets(t *testing.T) {
	if testing.Short() {
		t.Skip("2 KiB PoRep proof on the CPU: skipped with -short")
	}
	sec := newSector2KiB(t)
	url, _ := serveService(t)
	c := dial(t, url, token(t, api.PermWrite))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	r, err := c.SealCommit2(ctx, api.SealCommit2Request{Sector: sec.id, ProofType: abi.RegisteredSealProof_StackedDrg2KiBV1_1, C1: vanilla.EncodeC1(sec.c1)})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Proof) != groth16.ProofSize || r.Job.State != "done" {
		t.Fatalf("C2: %d bytes, job %+v", len(r.Proof), r.Job)
	}
}
