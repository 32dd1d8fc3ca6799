package itests

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/snarkpipe/snarkpipe/itests/kit"
)

// TestDaemonProvesOnGPUWhenPresent: with the CUDA library at cuda/build and a GPU (the
// daemons the kit starts run from the module root and find it there), a daemon on its
// default backend policy (auto) serves from the GPU, and a Winning PoSt proved through it
// verifies. Every other integration test then runs on the GPU backend too. Skips without
// a GPU.
func TestDaemonProvesOnGPUWhenPresent(t *testing.T) {
	kit.NeedsGPU(t)
	d := kit.StartDaemon(t, kit.DaemonOptions{NoCuzk: true})
	c := d.Client(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	st, err := c.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(st.Backend, "gpu") {
		t.Fatalf("daemon backend %q with a GPU present, want gpu", st.Backend)
	}
	s := kit.Sector2KiB(t, 31)
	rand := make([]byte, 32)
	for i := range rand {
		rand[i] = byte(i * 3)
	}
	job, err := submitWinning(ctx, c, s, rand)
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.AwaitJob(ctx, job.id)
	if err != nil {
		t.Fatal(err)
	}
	if err := job.verify(t, res); err != nil {
		t.Fatalf("%s: %v", job.name, err)
	}
}
