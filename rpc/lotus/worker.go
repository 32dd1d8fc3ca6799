package lotus

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/filecoin-project/go-state-types/abi"
	"github.com/filecoin-project/go-state-types/proof"
	"github.com/filecoin-project/lotus/storage/sealer/sealtasks"
	"github.com/filecoin-project/lotus/storage/sealer/storiface"
	"github.com/google/uuid"
	"github.com/ipfs/go-cid"

	"github.com/snarkpipe/snarkpipe/sealer"
)

// Prover is what the adapter needs from the proving service; *sealer.Service implements it.
type Prover interface {
	SubmitSealCommit2(ctx context.Context, req *sealer.SealCommit2Request) (sealer.JobID, error)
	Await(ctx context.Context, id sealer.JobID) (*sealer.JobResult, error)
	GenerateWindowPoSt(ctx context.Context, req *sealer.PoStRequest) (*sealer.PoStResponse, error)
	GenerateWinningPoSt(ctx context.Context, req *sealer.PoStRequest) (*sealer.PoStResponse, error)
	SubmitReplicaUpdate2(ctx context.Context, req *sealer.ReplicaUpdateRequest) (sealer.JobID, error)
	// ProofTypes says which proof types are servable: ProveReplicaUpdate2 is advertised
	// only while an update proof type is.
	ProofTypes() []sealer.ProofTypeStatus
}

var _ Prover = (*sealer.Service)(nil)

// roleWorker is one registration: its session, task types, calls and state.
type roleWorker struct {
	role    Role
	cfg     Config
	session uuid.UUID
	prover  Prover
	miner   *MinerClient
	vanilla *vanillaFetcher
	calls   *callStore
	log     *slog.Logger

	// life ends when the Worker closes: running calls stop without reporting, as after a
	// crash (their records make the next start report them).
	life context.Context

	disabled atomic.Bool
	shutdown chan struct{} // closed by Shutdown: Session answers the zero UUID
	stopOnce sync.Once

	mu    sync.Mutex
	tasks map[sealtasks.TaskType]struct{}

	running sync.WaitGroup // calls and reports in flight
	busy    atomic.Int64   // calls in flight, for WaitQuiet
	quiet   chan struct{}  // signalled when busy drops to zero
}

func (w *roleWorker) taskEnabled(tt sealtasks.TaskType) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if _, ok := w.tasks[tt]; !ok {
		return fmt.Errorf("lotus: task %s is not enabled on this worker (role %s)", tt, w.role)
	}
	return nil
}

func (w *roleWorker) closed() bool {
	select {
	case <-w.shutdown:
		return true
	default:
		return false
	}
}

// retire makes Session answer the zero UUID and refuses new calls. Taking mu orders it
// with sealCommit2's check-then-add, so running.Wait never races a new call.
func (w *roleWorker) retire() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.stopOnce.Do(func() { close(w.shutdown) })
}

// callBegin and callEnd count calls in flight for WaitQuiet.
func (w *roleWorker) callBegin() { w.busy.Add(1) }

func (w *roleWorker) callEnd() {
	if w.busy.Add(-1) == 0 {
		select {
		case w.quiet <- struct{}{}:
		default:
		}
	}
}

// workerAPI is the handler registered under "Filecoin": its exported methods are exactly
// the lotus worker methods we serve (lotus api.Worker; spec/integration.md §2.2). Methods
// lotus-miner may call that are not here (AddPiece, SealPreCommit1, ...) answer JSON-RPC
// "method not found", which is fine: the miner only calls methods of advertised tasks.
type workerAPI struct{ w *roleWorker }

// Version is the worker API version: 1.7.0 (67328).
func (a *workerAPI) Version(context.Context) (Version, error) { return WorkerAPIVersion, nil }

// Session is the worker's identity; an error makes the miner disable the worker until it
// answers again, the zero UUID tells it the worker is gone.
func (a *workerAPI) Session(context.Context) (uuid.UUID, error) {
	if a.w.disabled.Load() {
		return uuid.Nil, errors.New("worker disabled")
	}
	if a.w.closed() {
		return uuid.Nil, nil
	}
	return a.w.session, nil
}

// ProcessSession is the session even when disabled (lotus-worker CLI).
func (a *workerAPI) ProcessSession(context.Context) (uuid.UUID, error) {
	if a.w.closed() {
		return uuid.Nil, nil
	}
	return a.w.session, nil
}

// Info describes the worker to the scheduler (resources.go).
func (a *workerAPI) Info(context.Context) (storiface.WorkerInfo, error) { return a.w.info() }

// TaskTypes are the enabled task types of the role; ProveReplicaUpdate2 only while the
// service can prove an update proof type (checked at every call: the miner's selectors
// ask before each assignment, so parameters installed later are picked up).
func (a *workerAPI) TaskTypes(context.Context) (map[sealtasks.TaskType]struct{}, error) {
	snap := a.w.updateServable()
	a.w.mu.Lock()
	defer a.w.mu.Unlock()
	out := make(map[sealtasks.TaskType]struct{}, len(a.w.tasks))
	for tt := range a.w.tasks {
		if tt == sealtasks.TTProveReplicaUpdate2 && !snap {
			continue
		}
		out[tt] = struct{}{}
	}
	return out, nil
}

// Paths is empty: we keep no sector storage (C2 is scheduled by task type only).
func (a *workerAPI) Paths(context.Context) ([]storiface.StoragePath, error) {
	return []storiface.StoragePath{}, nil
}

// StorageLocal is empty for the same reason.
func (a *workerAPI) StorageLocal(context.Context) (map[storiface.ID]string, error) {
	return map[storiface.ID]string{}, nil
}

// Enabled and SetEnabled are lotus-worker's disable switch.
func (a *workerAPI) Enabled(context.Context) (bool, error) { return !a.w.disabled.Load(), nil }

// SetEnabled turns the worker on or off; off makes Session fail so the miner stops
// scheduling to it.
func (a *workerAPI) SetEnabled(_ context.Context, enabled bool) error {
	a.w.disabled.Store(!enabled)
	return nil
}

// TaskEnable re-enables one of the role's task types; other task types are not served.
func (a *workerAPI) TaskEnable(_ context.Context, tt sealtasks.TaskType) error {
	if !a.w.role.serves(tt) {
		return fmt.Errorf("lotus: task %s is not served by role %s (only %v)", tt, a.w.role, a.w.role.TaskTypes())
	}
	a.w.mu.Lock()
	a.w.tasks[tt] = struct{}{}
	a.w.mu.Unlock()
	return nil
}

// TaskDisable stops advertising a task type.
func (a *workerAPI) TaskDisable(_ context.Context, tt sealtasks.TaskType) error {
	a.w.mu.Lock()
	delete(a.w.tasks, tt)
	a.w.mu.Unlock()
	return nil
}

// WaitQuiet blocks until no call is in flight (or ctx ends). Several callers may wait:
// each also rechecks on a short tick, as the quiet signal wakes only one of them.
func (a *workerAPI) WaitQuiet(ctx context.Context) error {
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for a.w.busy.Load() > 0 {
		select {
		case <-a.w.quiet:
		case <-tick.C:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// Shutdown retires this registration: Session answers the zero UUID, so the miner drops
// the worker at its next heartbeat. Calls in flight still finish and report.
func (a *workerAPI) Shutdown(context.Context) error {
	a.w.retire()
	return nil
}

// SealCommit2 accepts a C2 and answers its CallID at once; the proof (or error) goes to the
// miner's ReturnSealCommit2 (commit2.go).
func (a *workerAPI) SealCommit2(ctx context.Context, sector storiface.SectorRef, c1o storiface.Commit1Out) (storiface.CallID, error) {
	return a.w.sealCommit2(sector, c1o)
}

// ProveReplicaUpdate2 accepts a SnapDeals proof and answers its CallID at once; the proof
// (or error) goes to the miner's ReturnProveReplicaUpdate2 (update.go).
func (a *workerAPI) ProveReplicaUpdate2(ctx context.Context, sector storiface.SectorRef, sectorKey, newSealed, newUnsealed cid.Cid, vanillaProofs storiface.ReplicaVanillaProofs) (storiface.CallID, error) {
	return a.w.proveReplicaUpdate2(sector, sectorKey, newSealed, newUnsealed, vanillaProofs)
}

// GenerateWindowPoSt proves one Window PoSt partition (post.go).
func (a *workerAPI) GenerateWindowPoSt(ctx context.Context, ppt abi.RegisteredPoStProof, mid abi.ActorID, sectors []storiface.PostSectorChallenge, partitionIdx int, randomness abi.PoStRandomness) (storiface.WindowPoStResult, error) {
	return a.w.generateWindowPoSt(ctx, ppt, mid, sectors, partitionIdx, randomness)
}

// GenerateWinningPoSt proves a Winning PoSt (post.go).
func (a *workerAPI) GenerateWinningPoSt(ctx context.Context, ppt abi.RegisteredPoStProof, mid abi.ActorID, sectors []storiface.PostSectorChallenge, randomness abi.PoStRandomness) ([]proof.PoStProof, error) {
	return a.w.generateWinningPoSt(ctx, ppt, mid, sectors, randomness)
}
