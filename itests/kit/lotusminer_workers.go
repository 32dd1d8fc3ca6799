package kit

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"time"

	"github.com/filecoin-project/go-jsonrpc/auth"
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

// pickWorker waits for an enabled worker of scheduler that takes task and picks one at
// random (lotus's PoSt schedulers shuffle; its sealing assigner is not modelled).
func (m *LotusMiner) pickWorker(ctx context.Context, scheduler string, task sealtasks.TaskType) (*minerWorker, error) {
	for {
		m.mu.Lock()
		var ready []*minerWorker
		for _, w := range m.workers {
			if _, ok := w.tasks[task]; ok && w.enabled && w.scheduler == scheduler {
				ready = append(ready, w)
			}
		}
		m.mu.Unlock()
		if len(ready) > 0 {
			return ready[rand.IntN(len(ready))], nil
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("%w (%s, %s): %w", errNoWorker, scheduler, task, ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
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
		if _, err := m.pickWorker(ctx, s, task); err != nil {
			return err
		}
	}
	return nil
}

// WorkerCount is the number of registered workers (enabled or not).
func (m *LotusMiner) WorkerCount() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.workers)
}
