//go:build lotusapi

// This test drives the adapter with lotus-miner's own worker client (api/client
// NewWorkerRPCV0, what connectRemoteWorker uses). It is behind a build tag because
// lotus/api pulls ~300 modules and takes minutes to compile on the 2-core CI. go.mod has
// lotus/api's requirements (the itests kit uses it), so it runs with
//
//	go test -tags lotusapi -run LotusWorkerClient ./rpc/lotus

package lotus_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/filecoin-project/go-state-types/abi"
	lapi "github.com/filecoin-project/lotus/api"
	"github.com/filecoin-project/lotus/api/client"
	"github.com/filecoin-project/lotus/storage/sealer/storiface"

	"github.com/snarkpipe/snarkpipe/rpc/lotus"
)

// TestLotusWorkerClient calls every role with lotus-miner's own worker client: the
// handshake (Version, Session, Info, TaskTypes, Paths), the role's proving methods (c2:
// SealCommit2 and ProveReplicaUpdate2) and the CLI methods. Measured 2026-11-30: passes;
// the lotus/api build took 3.5 min here.
func TestLotusWorkerClient(t *testing.T) {
	m := newTestMiner(t)
	st := newTestStorage(t)
	serveSectors(m, st, map[abi.SectorNumber][]byte{9: []byte("vanilla-9")})
	w, _ := startWorker(t, testConfig(), t.TempDir(), &fakeProver{snap: true}, m)
	ctx := testCtx(t, 30*time.Second)
	h := http.Header{"Authorization": []string{"Bearer " + minerToken}}
	for _, r := range lotus.AllRoles {
		wapi, closer, err := client.NewWorkerRPCV0(ctx, w.url(r), h)
		if err != nil {
			t.Fatal(err)
		}
		defer closer()
		v, err := wapi.Version(ctx)
		if err != nil || !v.EqMajorMinor(lapi.WorkerAPIVersion0) {
			t.Fatalf("%s Version %v %v", r, v, err)
		}
		s, err := wapi.Session(ctx)
		if err != nil {
			t.Fatal(err)
		}
		info, err := wapi.Info(ctx)
		if err != nil {
			t.Fatal(err)
		}
		tts, err := wapi.TaskTypes(ctx)
		if err != nil {
			t.Fatal(err)
		}
		paths, err := wapi.Paths(ctx)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: version %s session %s tasks %v paths %v resources %d task types", r, v, s, tts, paths, len(info.Resources.Resources))
		switch r {
		case lotus.RoleC2:
			ci, err := wapi.SealCommit2(ctx, storiface.SectorRef{ID: abi.SectorID{Miner: 1000, Number: 9}, ProofType: 8}, []byte("c1"))
			if err != nil {
				t.Fatal(err)
			}
			if got := m.waitReturn(t, 10*time.Second); got.ID != ci {
				t.Fatalf("returned %+v", got)
			}
			c := cidsOf(t, seqCommitment(1), seqCommitment(2), seqCommitment(3))
			ci, err = wapi.ProveReplicaUpdate2(ctx, snapSector, c.key, c.sealed, c.unsealed, storiface.ReplicaVanillaProofs{[]byte("v0")})
			if err != nil {
				t.Fatal(err)
			}
			if got := m.waitReturn(t, 10*time.Second); got.ID != ci || got.Method != "ProveReplicaUpdate2" || got.Err != nil {
				t.Fatalf("returned %+v", got)
			}
		case lotus.RoleWindow:
			res, err := wapi.GenerateWindowPoSt(ctx, testWindow2K, 1000, challenges(9), 0, make([]byte, 32))
			if err != nil || len(res.PoStProofs.ProofBytes) != 192 {
				t.Fatalf("window %+v %v", res, err)
			}
		case lotus.RoleWinning:
			p, err := wapi.GenerateWinningPoSt(ctx, abi.RegisteredPoStProof_StackedDrgWinning2KiBV1, 1000, challenges(9), make([]byte, 32))
			if err != nil || len(p) != 1 {
				t.Fatalf("winning %+v %v", p, err)
			}
		}
		if _, err := wapi.StorageLocal(ctx); err != nil {
			t.Fatal(err)
		}
		if err := wapi.WaitQuiet(ctx); err != nil {
			t.Fatal(err)
		}
		if en, err := wapi.Enabled(ctx); err != nil || !en {
			t.Fatal(en, err)
		}
	}
}
