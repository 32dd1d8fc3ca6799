package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/filecoin-project/go-state-types/abi"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	"github.com/snarkpipe/snarkpipe/rpc/cuzk/cuzkpb"
	"github.com/snarkpipe/snarkpipe/types"
)

// TestDaemonSnapServableAndPreload: with official parameters, a SnapDeals size is servable
// exactly when its empty-sector-update .params and .vk are in the parameter directory (so
// the lotus worker advertises ProveReplicaUpdate2 and the daemon lists update:<name>), and
// Curio's PreloadSRS takes the update circuit ids: snap-8m, whose files are missing, is
// refused at once as temporary (Unavailable) naming its parameter file, not as an unknown
// circuit, and before the circuit is recorded.
func TestDaemonSnapServableAndPreload(t *testing.T) {
	cfg := testDaemonConfig(t)
	cfg.Dev = false
	cfg.ParamDir = t.TempDir()
	dir := t.TempDir()
	cfg.Cuzk.Enabled, cfg.Cuzk.Listen = true, "unix://"+filepath.Join(dir, "cuzk.sock")
	snap2k, _ := types.UpdateProof(abi.RegisteredUpdateProof_StackedDrg2KiBV1)
	snap8m, _ := types.UpdateProof(abi.RegisteredUpdateProof_StackedDrg8MiBV1)
	for _, ext := range []string{"params", "vk"} {
		if err := os.WriteFile(filepath.Join(cfg.ParamDir, snap2k.ParamFileName(ext)), []byte("stand-in"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	d, err := startDaemon(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer d.shutdown(time.Minute)

	servable := map[string]bool{}
	for _, p := range d.svc.ProofTypes() {
		if p.Kind == "update" {
			servable[p.Name] = p.Servable
		}
	}
	if len(servable) != 5 || !servable[snap2k.RustName] || servable[snap8m.RustName] {
		t.Fatalf("update proof types servable: %v, want exactly %s of 5", servable, snap2k.RustName)
	}
	var out bytes.Buffer
	reportServable(&out, d.svc)
	if !strings.Contains(out.String(), "serves 1 proof types: SnapDeals 2KiB\n") || !strings.Contains(out.String(), "parameter files missing in "+cfg.ParamDir+"; snarkpipe params lists them): SealCommit2 2KiB 8MiB 512MiB; Winning PoSt 2KiB 8MiB 512MiB; Window PoSt 2KiB 8MiB 512MiB; SnapDeals 8MiB 512MiB\n") {
		t.Fatalf("servable report:\n%s", out.String())
	}

	conn, err := grpc.NewClient(cfg.Cuzk.Listen, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, err = cuzkpb.NewProvingEngineClient(conn).PreloadSRS(ctx, &cuzkpb.PreloadSrsRequest{CircuitId: snap8m.CircuitID})
	st, _ := status.FromError(err)
	if err == nil || st.Code() != codes.Unavailable || !strings.Contains(st.Message(), snap8m.ParamFileName("params")) {
		t.Fatalf("PreloadSRS(%s) without its files: %v", snap8m.CircuitID, err)
	}
	t.Logf("PreloadSRS(%s): %v", snap8m.CircuitID, err)
}
