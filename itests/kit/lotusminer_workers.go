package kit

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"sync"
	"time"

	"github.com/filecoin-project/go-jsonrpc/auth"
	"github.com/filecoin-project/go-state-types/abi"
	lapi "github.com/filecoin-project/lotus/api"
	"github.com/filecoin-project/lotus/api/client"
	"github.com/filecoin-project/lotus/storage/sealer/sealtasks"
	"github.com/filecoin-project/lotus/storage/sealer/storiface"
	"github.com/google/uuid"
)

// minerWorker is a registered worker as lotus's scheduler holds it.
type minerWorker struct {
	url       string
	session   uuid.UUID
	api       lapi.Worker
	closer    func()
	info      storiface.WorkerInfo
	tasks     map[sealtasks.TaskType]struct{}
	scheduler string // window, winning or sealing
	enabled   bool
	active    activeResources
}

// addWorker is lotus's connectRemoteWorker + Manager.AddWorker.
func (m *LotusMiner) addWorker(ctx context.Context, url string) error {
	token, err := m.newToken([]auth.Permission{"admin"})
	if err != nil {
		return err
	}
	h := http.Header{}
	h.Add("Authorization", "Bearer "+string(token))
	w, closer, err := client.NewWorkerRPCV0(context.Background(), url, h)
	if err != nil {
		return fmt.Errorf("creating jsonrpc client: %w", err)
	}
	mw, err := handshake(ctx, w, url)
	if err != nil {
		closer()
		return fmt.Errorf("connecting remote storage failed: %w", err)
	}
	mw.closer = closer
	m.mu.Lock()
	defer m.mu.Unlock()
	ev := WorkerConnectEvent{URL: url, Session: mw.session, Scheduler: mw.scheduler}
	if old, ok := m.workers[mw.session]; ok && mw.scheduler == "sealing" {
		// lotus's Scheduler.runWorker: "duplicated worker added", the running handle stays.
		ev.Duplicate = true
		ev.URL = old.url
		closer()
		m.connects = append(m.connects, ev)
		return nil
	} else if ok {
		old.closer() // the PoSt schedulers replace the handle
	}
	m.workers[mw.session] = mw
	m.connects = append(m.connects, ev)
	go m.heartbeat(mw, m.stop)
	return nil
}

// handshake checks the worker as lotus does before scheduling anything on it.
func handshake(ctx context.Context, w lapi.Worker, url string) (*minerWorker, error) {
	v, err := w.Version(ctx)
	if err != nil {
		return nil, err
	}
	if !v.EqMajorMinor(lapi.WorkerAPIVersion0) {
		return nil, fmt.Errorf("unsupported worker api version: %s (expected %s)", v, lapi.WorkerAPIVersion0)
	}
	s, err := w.Session(ctx)
	if err != nil {
		return nil, fmt.Errorf("getting worker session: %w", err)
	}
	if s == uuid.Nil {
		return nil, fmt.Errorf("worker already closed")
	}
	info, err := w.Info(ctx)
	if err != nil {
		return nil, fmt.Errorf("getting worker info: %w", err)
	}
	tasks, err := w.TaskTypes(ctx)
	if err != nil {
		return nil, fmt.Errorf("getting worker tasks: %w", err)
	}
	mw := &minerWorker{url: url, session: s, api: w, info: info, tasks: tasks, scheduler: "sealing", enabled: true}
	if _, ok := tasks[sealtasks.TTGenerateWindowPoSt]; ok {
		mw.scheduler = "window"
	} else if _, ok := tasks[sealtasks.TTGenerateWinningPoSt]; ok {
		mw.scheduler = "winning"
	}
	return mw, nil
}

// heartbeat is lotus's schedWorker.checkSession loop: Session every interval with half
// of it as timeout; an error disables the worker until it answers, another UUID drops it.
func (m *LotusMiner) heartbeat(w *minerWorker, stop chan struct{}) {
	tick := time.NewTicker(m.opts.Heartbeat)
	defer tick.Stop()
	for {
		select {
		case <-stop:
			return
		case <-tick.C:
		}
		ctx, cancel := context.WithTimeout(context.Background(), m.opts.Heartbeat/2+time.Second)
		cur, err := w.api.Session(ctx)
		cancel()
		m.mu.Lock()
		if m.workers[w.session] != w {
			m.mu.Unlock()
			return
		}
		switch {
		case err != nil:
			w.enabled = false
		case cur != w.session:
			delete(m.workers, w.session)
			w.closer()
			m.mu.Unlock()
			return
		default:
			w.enabled = true
		}
		m.mu.Unlock()
	}
}

// pickWorker picks at random one of the enabled workers of scheduler that take task and
// that lotus would admit it on (their reported resources and the tasks they run), and
// reserves the task's resources there until release is called. As lotus's schedulers:
// a PoSt request fails at once when no worker of its scheduler is registered; otherwise
// sealing and Window PoSt requests wait for a worker to be ready, Winning PoSt
// (primary=false) fails at once.
func (m *LotusMiner) pickWorker(ctx context.Context, scheduler string, task sealtasks.TaskType, spt abi.RegisteredSealProof) (*minerWorker, func(), error) {
	for {
		m.mu.Lock()
		var ready []*minerWorker
		registered := 0
		for _, w := range m.workers {
			if w.scheduler == scheduler {
				registered++
			}
			if _, ok := w.tasks[task]; ok && w.enabled && w.scheduler == scheduler {
				ready = append(ready, w)
			}
		}
		if registered == 0 && scheduler != "sealing" {
			m.mu.Unlock()
			return nil, nil, fmt.Errorf("%w: can't find %s post worker", errNoWorker, task)
		}
		rand.Shuffle(len(ready), func(i, j int) { ready[i], ready[j] = ready[j], ready[i] })
		for _, w := range ready {
			if release, ok := w.reserve(task, spt); ok {
				m.mu.Unlock()
				return w, m.releaser(release), nil
			}
		}
		m.mu.Unlock()
		if scheduler == "winning" {
			return nil, nil, fmt.Errorf("%w: can't find %s post worker", errNoWorker, task)
		}
		select {
		case <-ctx.Done():
			return nil, nil, fmt.Errorf("%w (%s, %s): %w", errNoWorker, scheduler, task, ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// releaser makes a reservation's release safe to call once, from anywhere.
func (m *LotusMiner) releaser(release func()) func() {
	var once sync.Once
	return func() {
		once.Do(func() {
			m.mu.Lock()
			defer m.mu.Unlock()
			release()
		})
	}
}

// WaitWorkers waits until the miner has an enabled worker for each of the schedulers
// ("sealing", "window", "winning") named.
func (m *LotusMiner) WaitWorkers(ctx context.Context, schedulers ...string) error {
	tasks := map[string]sealtasks.TaskType{"sealing": sealtasks.TTCommit2, "window": sealtasks.TTGenerateWindowPoSt, "winning": sealtasks.TTGenerateWinningPoSt}
	for _, s := range schedulers {
		task, ok := tasks[s]
		if !ok {
			return fmt.Errorf("kit: unknown scheduler %q", s)
		}
		for !m.hasWorker(s, task) {
			select {
			case <-ctx.Done():
				return fmt.Errorf("%w (%s, %s): %w", errNoWorker, s, task, ctx.Err())
			case <-time.After(20 * time.Millisecond):
			}
		}
	}
	return nil
}

func (m *LotusMiner) hasWorker(scheduler string, task sealtasks.TaskType) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, w := range m.workers {
		if _, ok := w.tasks[task]; ok && w.enabled && w.scheduler == scheduler {
			return true
		}
	}
	return false
}

// WorkerCount is the number of registered workers (enabled or not).
func (m *LotusMiner) WorkerCount() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.workers)
}
