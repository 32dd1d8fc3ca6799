package kit

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/filecoin-project/go-jsonrpc"
	"github.com/filecoin-project/go-jsonrpc/auth"
	"github.com/filecoin-project/go-state-types/abi"
	lapi "github.com/filecoin-project/lotus/api"
	"github.com/filecoin-project/lotus/storage/sealer/storiface"
	"github.com/golang-jwt/jwt/v5"
	"github.com/google/uuid"
)

// LotusMiner is a simulated lotus-miner: the part of lotus-miner a lotus-worker meets,
// served over real HTTP on loopback with lotus's own API definitions.
//
//   - /rpc/v0: JSON-RPC "Filecoin" namespace, api.StorageMiner behind lotus's permission
//     proxy (api.PermissionedStorMinerAPI) and go-jsonrpc's token handler: AuthVerify,
//     AuthNew, Version (miner API 1.5.0), Session, WorkerConnect, ReturnSealCommit2,
//     StorageFindSector. Other methods of api.StorageMiner answer lotus's ErrNotSupported.
//   - /remote/vanilla/single: the storage endpoint that serves PoSt vanilla proofs of the
//     fixture sectors (admin token required, as lotus's ServeRemote).
//
// WorkerConnect does what lotus's connectRemoteWorker and Manager.AddWorker do: it mints
// an admin token, dials the worker with lotus's worker client (api/client.NewWorkerRPCV0),
// requires worker API 1.7.x, a non-zero Session, Info and TaskTypes, and files the worker
// with the Window PoSt, Winning PoSt or sealing scheduler by its task types. Each worker's
// Session is then polled every heartbeat: an error disables it until it answers, another
// UUID drops it. The sim schedules SealCommit2 (async: CallID now, ReturnSealCommit2
// later), Window PoSt (partitions in parallel) and Winning PoSt, and verifies the proofs
// it gets with the dev verifying keys.
type LotusMiner struct {
	t      testing.TB
	secret []byte
	opts   LotusMinerOptions

	mu       sync.Mutex
	addr     string // host:port, kept across Restart and Down/Up
	srv      *http.Server
	session  uuid.UUID
	workers  map[uuid.UUID]*minerWorker
	connects []WorkerConnectEvent
	stop     chan struct{} // closed when the current incarnation stops (heartbeats end)
	sectors  map[abi.SectorNumber]*Sector
	broken   map[abi.SectorNumber]bool
	vanilla  map[vanillaKey][]byte
	calls    map[storiface.CallID]*callState
	dups     int
	inflight map[string]int // PoSt calls in flight per scheduler
	peak     map[string]int // their maximum
}

// LotusMinerOptions tune the simulation.
type LotusMinerOptions struct {
	// Heartbeat is the worker Session poll interval (lotus: 10 s; default here 1 s).
	Heartbeat time.Duration
}

// WorkerConnectEvent is one WorkerConnect the miner accepted.
type WorkerConnectEvent struct {
	URL     string
	Session uuid.UUID
	// Scheduler is "window", "winning" or "sealing".
	Scheduler string
	// Duplicate is set when a sealing worker with this Session was already known: lotus
	// keeps the existing handle (and its URL) and ignores the new one.
	Duplicate bool
}

// StartLotusMiner starts the simulated miner on a free loopback port; it stops at the end
// of the test.
func StartLotusMiner(t testing.TB, o LotusMinerOptions) *LotusMiner {
	t.Helper()
	if o.Heartbeat == 0 {
		o.Heartbeat = time.Second
	}
	m := &LotusMiner{
		t: t, opts: o, secret: []byte(uuid.NewString() + uuid.NewString()), session: uuid.New(),
		workers: map[uuid.UUID]*minerWorker{}, sectors: map[abi.SectorNumber]*Sector{}, broken: map[abi.SectorNumber]bool{},
		vanilla: map[vanillaKey][]byte{}, calls: map[storiface.CallID]*callState{}, inflight: map[string]int{}, peak: map[string]int{},
	}
	if err := m.serve("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(m.shutdown)
	return m
}

// serve starts an incarnation on addr.
func (m *LotusMiner) serve(addr string) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("kit: lotus-miner listen %s: %w", addr, err)
	}
	rpc := jsonrpc.NewServer(jsonrpc.WithServerErrors(lapi.RPCErrors))
	rpc.Register("Filecoin", lapi.PermissionedStorMinerAPI(&minerAPI{m: m}))
	mux := http.NewServeMux()
	mux.Handle("/rpc/v0", rpc)
	mux.HandleFunc("/remote/vanilla/single", m.serveVanilla)
	srv := &http.Server{Handler: &auth.Handler{Verify: m.verifyToken, Next: mux.ServeHTTP}, ReadHeaderTimeout: 10 * time.Second}
	m.mu.Lock()
	m.addr, m.srv, m.stop = ln.Addr().String(), srv, make(chan struct{})
	m.mu.Unlock()
	go srv.Serve(ln)
	return nil
}

// halt stops the current incarnation: the listener and every connection close, and the
// worker heartbeats end.
func (m *LotusMiner) halt() {
	m.mu.Lock()
	srv, stop := m.srv, m.stop
	m.srv = nil
	m.mu.Unlock()
	if srv == nil {
		return
	}
	close(stop)
	srv.Close()
}

func (m *LotusMiner) shutdown() {
	m.halt()
	m.mu.Lock()
	defer m.mu.Unlock()
	for id, w := range m.workers {
		w.closer()
		delete(m.workers, id)
	}
}

// URL is the miner's JSON-RPC endpoint.
func (m *LotusMiner) URL() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return "http://" + m.addr + "/rpc/v0"
}

// APIInfo is MINER_API_INFO for a worker: an admin token and the endpoint.
func (m *LotusMiner) APIInfo() string {
	tok, err := m.newToken([]auth.Permission{"read", "write", "sign", "admin"})
	if err != nil {
		m.t.Fatal(err)
	}
	return string(tok) + ":" + m.URL()
}

// Session is the miner's current session UUID.
func (m *LotusMiner) Session() uuid.UUID {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.session
}

// Restart simulates a lotus-miner restart: a new Session, no workers (they must
// WorkerConnect again), same address, same API secret, and calls in ret-wait kept (lotus
// persists its call tracker).
func (m *LotusMiner) Restart() {
	m.t.Helper()
	m.halt()
	m.mu.Lock()
	for id, w := range m.workers {
		w.closer()
		delete(m.workers, id)
	}
	m.session = uuid.New()
	addr := m.addr
	m.mu.Unlock()
	m.mustServe(addr)
}

// Down makes the miner unreachable (connections refused) until Up.
func (m *LotusMiner) Down() { m.halt() }

// Up brings the miner back on the same address with the same Session and workers.
func (m *LotusMiner) Up() {
	m.t.Helper()
	m.mu.Lock()
	addr := m.addr
	m.mu.Unlock()
	m.mustServe(addr)
	m.mu.Lock()
	for _, w := range m.workers {
		go m.heartbeat(w, m.stop)
	}
	m.mu.Unlock()
}

func (m *LotusMiner) mustServe(addr string) {
	var err error
	for range 50 { // the port was just closed; binding it again may take a moment
		if err = m.serve(addr); err == nil {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	m.t.Fatal(err)
}

// Connects lists the accepted WorkerConnect calls so far.
func (m *LotusMiner) Connects() []WorkerConnectEvent {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]WorkerConnectEvent(nil), m.connects...)
}

// tokenClaims is lotus's JWT payload.
type tokenClaims struct {
	Allow []auth.Permission
	jwt.RegisteredClaims
}

func (m *LotusMiner) newToken(perms []auth.Permission) ([]byte, error) {
	s, err := jwt.NewWithClaims(jwt.SigningMethodHS256, tokenClaims{Allow: perms}).SignedString(m.secret)
	return []byte(s), err
}

func (m *LotusMiner) verifyToken(_ context.Context, token string) ([]auth.Permission, error) {
	var c tokenClaims
	if _, err := jwt.ParseWithClaims(token, &c, func(*jwt.Token) (any, error) { return m.secret, nil },
		jwt.WithValidMethods([]string{jwt.SigningMethodHS256.Alg()})); err != nil {
		return nil, fmt.Errorf("JWT Verification failed: %w", err)
	}
	return c.Allow, nil
}

// errNoWorker is returned when no enabled worker of a scheduler is registered in time.
var errNoWorker = errors.New("kit: no enabled worker for this task")
