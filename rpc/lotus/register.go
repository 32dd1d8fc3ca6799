package lotus

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"
)

// minerCallTimeout bounds Version and Session calls: go-jsonrpc over HTTP has no timeout
// of its own, and a hung miner must not stall the heartbeat.
const minerCallTimeout = 30 * time.Second

// checkMinerVersion waits for the miner to answer (it may still be starting) and refuses
// one whose API is not 1.5.x.
func checkMinerVersion(ctx context.Context, m *MinerClient, retry time.Duration, log func(msg string, args ...any)) error {
	for {
		cctx, cancel := context.WithTimeout(ctx, minerCallTimeout)
		v, err := m.Version(cctx)
		cancel()
		if err == nil {
			if !v.APIVersion.SameMajorMinor(MinerAPIVersion) {
				return fmt.Errorf("lotus: miner API version %s (%s), want %s.x", v.APIVersion, v.Version, MinerAPIVersion)
			}
			return nil
		}
		log("miner not reachable, retrying", "err", err)
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(retry):
		}
	}
}

// register keeps the role registered until ctx ends: WorkerConnect(url), then the miner's
// Session is polled every heartbeat and WorkerConnect repeated whenever it changes (the
// miner restarted and forgot us) or a previous attempt failed. Unlike lotus-worker we do
// not wait for running calls before registering again: our results are tracked on disk
// and re-sent until a miner accepts them.
func (w *roleWorker) register(ctx context.Context, url string) {
	var known uuid.UUID
	connected := false
	for {
		sctx, cancel := context.WithTimeout(ctx, minerCallTimeout)
		cur, err := w.miner.Session(sctx)
		cancel()
		if err != nil {
			w.log.Warn("miner session check failed", "err", err)
		} else if cur != known || !connected {
			if connected {
				w.log.Warn("miner session changed, registering again", "old", known, "new", cur)
			}
			known, connected = cur, w.connect(ctx, url)
		}
		select {
		case <-ctx.Done():
			return
		case <-w.shutdown:
			return
		case <-time.After(w.cfg.HeartbeatInterval):
		}
	}
}

func (w *roleWorker) connect(ctx context.Context, url string) bool {
	cctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	if err := w.miner.WorkerConnect(cctx, url); err != nil {
		w.log.Error("WorkerConnect failed, will retry", "url", url, "err", err)
		return false
	}
	w.log.Info("registered with the miner", "url", url, "session", w.session)
	return true
}
