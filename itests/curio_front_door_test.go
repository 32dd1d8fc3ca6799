package itests

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/filecoin-project/go-state-types/abi"
	"google.golang.org/protobuf/proto"

	"github.com/snarkpipe/snarkpipe/itests/kit"
	"github.com/snarkpipe/snarkpipe/rpc/cuzk/cuzkpb"
	"github.com/snarkpipe/snarkpipe/types"
)

// Flags of TestCurioFrontDoorStep, which drives a daemon started elsewhere (for instance
// by cuda/runs/params32.sh on a GPU host) through its Curio gRPC endpoint, one step per
// run, so that a script can change the parameter files between steps.
var (
	curioAddr    = flag.String("curio.addr", "", "Curio (cuzk) gRPC address of a running daemon; empty: TestCurioFrontDoorStep skips")
	curioStep    = flag.String("curio.step", "preload", "preload, evict, prove (curio.proofs C2 proofs of curio.c1 submitted at once) or preload-fails (curio.want)")
	curioCircuit = flag.String("curio.circuit", "porep-32g", "circuit id of PreloadSRS and EvictSRS")
	curioC1      = flag.String("curio.c1", "", "C1 output from `snarkpipe synth --kind c1` (its sector in FILE.sector.json)")
	curioProof   = flag.String("curio.proof", "StackedDrg32GiBV1_1", "registered seal proof of curio.c1 (Rust name)")
	curioProofs  = flag.Int("curio.proofs", 3, "proofs of the prove step")
	curioWant    = flag.String("curio.want", "", "preload-fails: '|'-separated substrings the error must contain")
)

// TestCurioFrontDoorStep runs one step against the daemon at -curio.addr and prints one
// "curio:" line of figures per event (unix times in seconds, durations in seconds), which
// the calling script collects. Every proof the daemon returns was verified in the daemon
// against the .vk of its parameter directory; the step checks it is 192 bytes per
// partition.
func TestCurioFrontDoorStep(t *testing.T) {
	if *curioAddr == "" {
		t.Skip("no -curio.addr: this test drives a daemon started elsewhere (cuda/runs/params32.sh)")
	}
	c := dialCurio(t, *curioAddr, 64)
	ctx := context.Background()
	switch *curioStep {
	case "preload":
		start := time.Now()
		res, err := c.svc.PreloadSRS(ctx, &cuzkpb.PreloadSrsRequest{CircuitId: *curioCircuit})
		if err != nil {
			t.Fatalf("PreloadSRS %s: %v", *curioCircuit, err)
		}
		fmt.Printf("curio: preload %s already_loaded=%v load_time_ms=%d wall_s=%.3f\n", *curioCircuit, res.GetAlreadyLoaded(), res.GetLoadTimeMs(), time.Since(start).Seconds())
	case "evict":
		res, err := c.svc.EvictSRS(ctx, &cuzkpb.EvictSrsRequest{CircuitId: *curioCircuit})
		if err != nil {
			t.Fatalf("EvictSRS %s: %v", *curioCircuit, err)
		}
		fmt.Printf("curio: evict %s was_loaded=%v freed_bytes=%d\n", *curioCircuit, res.GetWasLoaded(), res.GetFreedBytes())
	case "preload-fails":
		_, err := c.svc.PreloadSRS(ctx, &cuzkpb.PreloadSrsRequest{CircuitId: *curioCircuit})
		if err == nil {
			t.Fatalf("PreloadSRS %s succeeded, want an error containing %q", *curioCircuit, *curioWant)
		}
		for _, w := range strings.Split(*curioWant, "|") {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("error lacks %q", w)
			}
		}
		fmt.Printf("curio: preload refused: %v\n", err)
	case "prove":
		proveSteps(t, c)
	default:
		t.Fatalf("unknown -curio.step %q", *curioStep)
	}
}

// proveSteps submits -curio.proofs C2 requests of one C1 at once (SubmitProof), awaits
// each (AwaitProof) and prints each latency, the first completion and the steady state
// (time between completions after the first, as `snarkpipe bench` reckons it).
func proveSteps(t *testing.T, c *curioClient) {
	s := c1Sector(t)
	req := curioPoRep(t, s, s.C1)
	info, err := types.SealProof(s.SealProof)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	start := time.Now()
	fmt.Printf("curio: prove submit_unix=%.3f proofs=%d\n", float64(start.UnixNano())/1e9, *curioProofs)
	var mu sync.Mutex
	var ends []time.Time
	var wg sync.WaitGroup
	for i := range *curioProofs {
		r := proto.CloneOf(req)
		r.RequestId = fmt.Sprintf("%s-%d", req.RequestId, i)
		sub, err := c.svc.SubmitProof(ctx, r)
		if err != nil {
			t.Fatalf("SubmitProof %d: %v", i, err)
		}
		wg.Go(func() {
			res, err := c.svc.AwaitProof(ctx, &cuzkpb.AwaitProofRequest{JobId: sub.GetJobId()})
			end := time.Now()
			switch {
			case err != nil:
				t.Errorf("AwaitProof %d: %v", i, err)
			case res.GetStatus() != cuzkpb.AwaitProofResponse_COMPLETED:
				t.Errorf("proof %d: %s: %s", i, res.GetStatus(), res.GetErrorMessage())
			case len(res.GetProof()) != 192*int(info.PartitionCount):
				t.Errorf("proof %d: %d bytes, want %d", i, len(res.GetProof()), 192*info.PartitionCount)
			default:
				mu.Lock()
				ends = append(ends, end)
				mu.Unlock()
				fmt.Printf("curio: proof %d verified (%d bytes) done_unix=%.3f latency_s=%.3f\n", i, len(res.GetProof()), float64(end.UnixNano())/1e9, end.Sub(start).Seconds())
			}
		})
	}
	wg.Wait()
	if len(ends) == 0 {
		return
	}
	sort.Slice(ends, func(i, j int) bool { return ends[i].Before(ends[j]) })
	steady := 0.0
	if len(ends) > 1 {
		steady = ends[len(ends)-1].Sub(ends[0]).Seconds() / float64(len(ends)-1)
	}
	fmt.Printf("curio: proofs_verified=%d of %d first_done_unix=%.3f first_latency_s=%.3f steady_s_per_proof=%.3f\n",
		len(ends), *curioProofs, float64(ends[0].UnixNano())/1e9, ends[0].Sub(start).Seconds(), steady)
}

// c1Sector reads -curio.c1 and its sector file into a kit.Sector for curioPoRep.
func c1Sector(t *testing.T) *kit.Sector {
	t.Helper()
	info, err := types.SealProofByRustName(*curioProof)
	if err != nil {
		t.Fatal(err)
	}
	c1, err := os.ReadFile(*curioC1)
	if err != nil {
		t.Fatalf("-curio.c1: %v", err)
	}
	raw, err := os.ReadFile(*curioC1 + ".sector.json")
	if err != nil {
		t.Fatal(err)
	}
	var id abi.SectorID
	if err := json.Unmarshal(raw, &id); err != nil {
		t.Fatalf("%s.sector.json: %v", *curioC1, err)
	}
	return &kit.Sector{ID: id, SealProof: info.ID, C1: c1}
}
