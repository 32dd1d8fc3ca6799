package kit

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/snarkpipe/snarkpipe/rpc/api"
)

// WaitJob polls the daemon's Status until one of its recent jobs of kind
// ("seal-commit2", "winning-post", "window-post") is in one of states ("queued",
// "running", "done", "failed", "cancelled") and returns it. It lets a test act at a known
// point of a job (kill during a C2, bring a miner back once a proof exists) instead of
// sleeping.
func (d *Daemon) WaitJob(ctx context.Context, t testing.TB, kind string, states ...string) (api.JobInfo, error) {
	t.Helper()
	c := d.Client(t)
	for {
		st, err := c.Status(ctx)
		if err == nil {
			for _, j := range st.Recent {
				if j.Kind == kind && slices.Contains(states, j.State) {
					return j, nil
				}
			}
		}
		select {
		case <-ctx.Done():
			return api.JobInfo{}, fmt.Errorf("kit: no %s job in state %v (last status error: %v): %w", kind, states, err, ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
}
