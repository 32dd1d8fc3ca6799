package lotus_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/filecoin-project/go-state-types/abi"
	"github.com/filecoin-project/lotus/storage/sealer/sealtasks"
	"github.com/filecoin-project/lotus/storage/sealer/storiface"

	"github.com/snarkpipe/snarkpipe/prover"
	"github.com/snarkpipe/snarkpipe/prover/pipeline"
	"github.com/snarkpipe/snarkpipe/rpc/lotus"
	"github.com/snarkpipe/snarkpipe/sealer"
	"github.com/snarkpipe/snarkpipe/sealer/refseal"
	"github.com/snarkpipe/snarkpipe/sealer/update"
	"github.com/snarkpipe/snarkpipe/types"
)

// update2K is a 2 KiB sector update by the reference updater: its CIDs and vanilla
// partition proofs as lotus-miner sends them (ProveReplicaUpdate1's output).
type update2K struct {
	u       *refseal.SectorUpdate
	cids    snapCIDs
	vproofs storiface.ReplicaVanillaProofs
}

func newUpdate2K(t testing.TB) *update2K {
	t.Helper()
	info, err := types.UpdateProof(abi.RegisteredUpdateProof_StackedDrg2KiBV1)
	if err != nil {
		t.Fatal(err)
	}
	u, err := refseal.PatternUpdate(info, 3)
	if err != nil {
		t.Fatal(err)
	}
	vproofs, err := u.EncodedPartitionProofs()
	if err != nil {
		t.Fatal(err)
	}
	out := &update2K{u: u, cids: cidsOf(t, u.CommROld, u.CommRNew, u.CommDNew), vproofs: vproofs}
	return out
}

// recordingPipeline stands in for the proving pipeline behind a real sealer.Service: it
// records what reaches it and refuses it as closed (a temporary error).
type recordingPipeline struct {
	mu   sync.Mutex
	jobs []pipeline.JobSpec
}

func (p *recordingPipeline) Submit(_ context.Context, spec pipeline.JobSpec) (*pipeline.Job, error) {
	p.mu.Lock()
	p.jobs = append(p.jobs, spec)
	p.mu.Unlock()
	return nil, pipeline.ErrClosed
}

func (p *recordingPipeline) Preload(context.Context, prover.Circuit) (pipeline.LoadInfo, error) {
	return pipeline.LoadInfo{}, pipeline.ErrClosed
}
func (p *recordingPipeline) Evict(prover.CircuitID) (bool, error) { return false, nil }
func (p *recordingPipeline) Status() pipeline.Status              { return pipeline.Status{} }

// TestCorruptedUpdateVanillaThroughMiner: the real service behind the worker checks a
// ProveReplicaUpdate2's vanilla partition proof natively; a corrupted one comes back
// through ReturnProveReplicaUpdate2 as a permanent CallError (ErrUnknown) naming the failed
// check, before anything reaches the prover, and the worker keeps serving: the intact
// request that follows reaches the prover as the 2 KiB update circuit.
func TestCorruptedUpdateVanillaThroughMiner(t *testing.T) {
	up := newUpdate2K(t)
	pipe := &recordingPipeline{}
	svc, err := sealer.New(sealer.DefaultConfig(), sealer.Deps{Prover: pipe, Backend: "cpu"})
	if err != nil {
		t.Fatal(err)
	}
	m := newTestMiner(t)
	cfg := testConfig()
	cfg.Roles = []lotus.Role{lotus.RoleC2}
	w, _ := startWorker(t, cfg, t.TempDir(), svc, m)
	registerAll(t, w, m, cfg.Roles)
	ctx := testCtx(t, time.Minute)
	wc := m.worker(w.url(lotus.RoleC2))
	tts, err := wc.TaskTypes(ctx)
	if _, ok := tts[sealtasks.TTProveReplicaUpdate2]; err != nil || !ok {
		t.Fatalf("the real service's c2 role advertises %v, %v", tts, err)
	}

	bad := append([]byte(nil), up.vproofs[0]...)
	bad[len(bad)/2] ^= 1
	ci, err := wc.ProveReplicaUpdate2(ctx, snapSector, up.cids.key, up.cids.sealed, up.cids.unsealed, [][]byte{bad})
	if err != nil {
		t.Fatal(err)
	}
	r := m.waitReturn(t, 30*time.Second)
	if r.ID != ci || r.Method != "ProveReplicaUpdate2" || r.Err == nil || r.Err.Code != storiface.ErrUnknown || r.Proof != nil {
		t.Fatalf("corrupted vanilla: %+v", r)
	}
	if !strings.Contains(r.Err.Message, "invalid update vanilla proof") || !strings.Contains(r.Err.Message, "check failed") {
		t.Fatalf("CallError %q does not name the failed check", r.Err.Message)
	}
	t.Logf("corrupted vanilla: %s", r.Err.Message)
	pipe.mu.Lock()
	n := len(pipe.jobs)
	pipe.mu.Unlock()
	if n != 0 {
		t.Fatalf("%d jobs reached the prover", n)
	}

	ci, err = wc.ProveReplicaUpdate2(ctx, snapSector, up.cids.key, up.cids.sealed, up.cids.unsealed, up.vproofs)
	if err != nil {
		t.Fatal(err)
	}
	r = m.waitReturn(t, 30*time.Second)
	if r.ID != ci || r.Err == nil || r.Err.Code != storiface.ErrTempUnknown {
		t.Fatalf("intact request against a closed prover: %+v, want ErrTempUnknown", r)
	}
	pipe.mu.Lock()
	defer pipe.mu.Unlock()
	if len(pipe.jobs) != 1 || len(pipe.jobs[0].Circuits) != up.u.Info.PartitionCount || pipe.jobs[0].Circuits[0].ID() != prover.CircuitID(up.u.Info.CircuitID) {
		t.Fatalf("prover got %+v", pipe.jobs)
	}
}

// TestRealReplicaUpdate2ThroughMiner proves a 2 KiB SnapDeals update through the wire:
// ProveReplicaUpdate2 → CallID → ReturnProveReplicaUpdate2 with a proof that verifies
// against the dev verifying key and public inputs computed here from the commitments.
// Skipped with -short: a 2 KiB update proof (1.7 M constraints) on the CPU takes minutes
// on 2 cores (and its dev parameters take longer on a cold cache).
func TestRealReplicaUpdate2ThroughMiner(t *testing.T) {
	if testing.Short() {
		t.Skip("2 KiB SnapDeals proof on the CPU: skipped with -short")
	}
	up := newUpdate2K(t)
	m := newTestMiner(t)
	cfg := testConfig()
	cfg.Roles = []lotus.Role{lotus.RoleC2}
	w, _ := startWorker(t, cfg, t.TempDir(), newService(t), m)
	registerAll(t, w, m, cfg.Roles)
	ctx := testCtx(t, 30*time.Minute)
	start := time.Now()
	ci, err := m.worker(w.url(lotus.RoleC2)).ProveReplicaUpdate2(ctx, snapSector, up.cids.key, up.cids.sealed, up.cids.unsealed, up.vproofs)
	if err != nil {
		t.Fatal(err)
	}
	r := m.waitReturn(t, 30*time.Minute)
	if r.ID != ci || r.Method != "ProveReplicaUpdate2" || r.Err != nil {
		t.Fatalf("returned %+v", r)
	}
	t.Logf("2 KiB ProveReplicaUpdate2 through the worker in %v", time.Since(start))
	info := up.u.Info
	proofs, err := up.u.PartitionProofs()
	if err != nil {
		t.Fatal(err)
	}
	circuits, err := update.Circuits(info, up.u.CommROld, up.u.CommDNew, up.u.CommRNew, proofs)
	if err != nil {
		t.Fatal(err)
	}
	public := make([][]fr.Element, len(circuits))
	for k, c := range circuits {
		if public[k], err = update.ConfigFor(info).InputVector(&c.Public); err != nil {
			t.Fatal(err)
		}
	}
	blank, err := update.Blank(update.ConfigFor(info))
	if err != nil {
		t.Fatal(err)
	}
	verifyProofs(t, blank, r.Proof, public)
}
