package lotus

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"path/filepath"
	"sync"

	"github.com/filecoin-project/go-jsonrpc"
	"github.com/filecoin-project/lotus/storage/sealer/sealtasks"
)

// Deps are the worker adapter's collaborators.
type Deps struct {
	// Prover proves; *sealer.Service in production.
	Prover Prover
	// Miner is the miner's API (DialMiner); MinerAuth is the header carrying our miner
	// token, also sent to storage endpoints when fetching vanilla proofs.
	Miner     *MinerClient
	MinerAuth http.Header
	// Verify checks the tokens the miner calls us with (MinerVerifier or SecretVerifier).
	Verify TokenVerifier
	// StateDir holds, per role, the Session UUID and the tracked calls.
	StateDir string
	// HTTPClient fetches vanilla proofs (nil: a client without overall timeout; reads are
	// bounded by Config.PoStReadTimeout).
	HTTPClient *http.Client
	// Log receives operational messages (nil: discarded).
	Log *slog.Logger
	// MaxRequestBytes bounds a JSON-RPC request (0: 192 MiB, room for a base64'd 64 GiB
	// C1 output).
	MaxRequestBytes int64
}

// Worker is the lotus-worker adapter: one registration per role, served on one HTTP
// handler at /<role>/rpc/v0.
type Worker struct {
	cfg   Config
	roles []*roleWorker
	mux   *http.ServeMux

	life   context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// New builds the adapter and reports what a previous process left unreported (calls
// started then: ErrTempWorkerRestart; finished: their result). Close stops it.
func New(cfg Config, deps Deps) (*Worker, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if deps.Prover == nil || deps.Miner == nil || deps.Verify == nil || deps.StateDir == "" {
		return nil, errors.New("lotus: Deps.Prover, Miner, Verify and StateDir are required")
	}
	if deps.Log == nil {
		deps.Log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if deps.HTTPClient == nil {
		deps.HTTPClient = &http.Client{}
	}
	if deps.MaxRequestBytes == 0 {
		deps.MaxRequestBytes = 192 << 20
	}
	life, cancel := context.WithCancel(context.Background())
	w := &Worker{cfg: cfg, mux: http.NewServeMux(), life: life, cancel: cancel}
	fetcher := &vanillaFetcher{miner: deps.Miner, auth: deps.MinerAuth.Clone(), client: deps.HTTPClient, parallel: cfg.PoStParallelReads, timeout: cfg.PoStReadTimeout}
	if fetcher.auth == nil {
		fetcher.auth = http.Header{}
	}
	for _, role := range cfg.Roles {
		rw, err := newRoleWorker(role, cfg, deps, fetcher, life)
		if err != nil {
			cancel()
			return nil, err
		}
		srv := jsonrpc.NewServer(jsonrpc.WithMaxRequestSize(deps.MaxRequestBytes))
		srv.Register("Filecoin", &workerAPI{w: rw})
		w.mux.Handle(role.Path(), requireAdmin(deps.Verify, srv))
		w.roles = append(w.roles, rw)
	}
	w.mux.Handle("/", notFound(cfg.Roles))
	for _, rw := range w.roles {
		if err := rw.recoverCalls(); err != nil {
			w.Close()
			return nil, err
		}
	}
	return w, nil
}

func newRoleWorker(role Role, cfg Config, deps Deps, fetcher *vanillaFetcher, life context.Context) (*roleWorker, error) {
	dir := filepath.Join(deps.StateDir, string(role))
	session, err := loadSession(dir)
	if err != nil {
		return nil, err
	}
	calls, err := openCallStore(filepath.Join(dir, "calls"))
	if err != nil {
		return nil, err
	}
	return &roleWorker{
		role: role, cfg: cfg, session: session, prover: deps.Prover, miner: deps.Miner,
		vanilla: fetcher, calls: calls, log: deps.Log.With("role", string(role)), life: life,
		shutdown: make(chan struct{}), quiet: make(chan struct{}, 1),
		tasks: taskSet(role.TaskTypes()),
	}, nil
}

// Handler serves every role's JSON-RPC endpoint at /<role>/rpc/v0.
func (w *Worker) Handler() http.Handler { return w.mux }

// Register waits for the miner, checks its API version (1.5.x, else it returns an error),
// then keeps every role registered (WorkerConnect
// with baseURL + /<role>/rpc/v0, again whenever the miner's Session changes) until ctx
// ends or the Worker closes. baseURL is how the miner reaches us, e.g. http://10.0.0.5:3456.
func (w *Worker) Register(ctx context.Context, baseURL string) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-w.life.Done():
			cancel()
		case <-ctx.Done():
		}
	}()
	if err := checkMinerVersion(ctx, w.roles[0].miner, w.cfg.HeartbeatInterval, w.roles[0].log.Warn); err != nil {
		return err
	}
	var wg sync.WaitGroup
	for _, rw := range w.roles {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rw.register(ctx, baseURL+rw.role.Path())
		}()
	}
	wg.Wait()
	return ctx.Err()
}

// Sessions returns each role's Session UUID (for logs and tests).
func (w *Worker) Sessions() map[Role]string {
	out := map[Role]string{}
	for _, rw := range w.roles {
		out[rw.role] = rw.session.String()
	}
	return out
}

// Drain retires every role (Session answers the zero UUID, so the miner drops us at its
// next heartbeat, and no new call is accepted), then waits until the calls in flight have
// finished and their results were accepted by the miner, or ctx ends.
func (w *Worker) Drain(ctx context.Context) error {
	idle := make(chan struct{})
	go func() {
		for _, rw := range w.roles {
			rw.retire()
		}
		for _, rw := range w.roles {
			rw.running.Wait()
		}
		close(idle)
	}()
	select {
	case <-idle:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("lotus: calls still in flight: %w", ctx.Err())
	}
}

// Close stops the adapter at once. Calls still proving are abandoned unreported, as in a
// crash: their records make the next process report them with ErrTempWorkerRestart. To
// finish them first, wait for WaitQuiet (lotus-worker's `wait-quiet`) before closing.
func (w *Worker) Close() error {
	w.cancel()
	for _, rw := range w.roles {
		rw.running.Wait()
	}
	return nil
}

// String names the adapter's roles, for logs.
func (w *Worker) String() string {
	return fmt.Sprintf("lotus worker %v", w.cfg.Roles)
}

func taskSet(tts []sealtasks.TaskType) map[sealtasks.TaskType]struct{} {
	out := make(map[sealtasks.TaskType]struct{}, len(tts))
	for _, tt := range tts {
		out[tt] = struct{}{}
	}
	return out
}
