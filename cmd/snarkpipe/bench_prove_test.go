package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/urfave/cli/v2"

	"github.com/snarkpipe/snarkpipe/prover"
	"github.com/snarkpipe/snarkpipe/prover/backend"
	"github.com/snarkpipe/snarkpipe/prover/groth16"
	"github.com/snarkpipe/snarkpipe/prover/pipeline"
	"github.com/snarkpipe/snarkpipe/prover/r1cs"
	"github.com/snarkpipe/snarkpipe/prover/srs"
	"github.com/snarkpipe/snarkpipe/prover/srs/srstest"
)

// cachedDevKeys is a key source of dev parameters cached on this machine (srstest): the
// CPU benchmark keys are DevSetup runs of tens of seconds each on a busy 2-core host, and
// the tests exercise the command, not the setup (pipeline tests cover BenchKeys).
type cachedDevKeys struct{ cache srs.DirCache }

func (k cachedDevKeys) ProvingKey(ctx context.Context, id prover.CircuitID, shape *r1cs.Shape, be backend.Backend) (*groth16.ProvingKey, error) {
	params, err := cachedDevParams(k).Params(ctx, id, shape)
	if err != nil {
		return nil, err
	}
	pk, err := groth16.NewProvingKey(be, params, shape.Counts())
	if err != nil {
		params.Close()
		return nil, err
	}
	return pk, nil
}

// cachedDevParams is cachedDevKeys as host parameters (the --host-keys path).
type cachedDevParams struct{ cache srs.DirCache }

func (k cachedDevParams) Params(_ context.Context, _ prover.CircuitID, shape *r1cs.Shape) (*groth16.Params, error) {
	path, err := k.cache.GetOrBuild(srs.DevParamsName(shape), func(tmp string) error {
		p, err := groth16.DevSetup(shape, nil)
		if err != nil {
			return err
		}
		return p.WriteFile(tmp)
	})
	if err != nil {
		return nil, err
	}
	return groth16.ReadParams(path, groth16.ReadOptions{AllowDev: true})
}

var benchKeysMu sync.Mutex

// runBenchCmd runs `snarkpipe bench ARGS --cpu` in-process with cached dev keys and
// returns its output.
func runBenchCmd(t *testing.T, args ...string) (string, error) {
	t.Helper()
	benchKeysMu.Lock()
	defer benchKeysMu.Unlock()
	saved, savedParams := benchKeySource, benchParamsSource
	benchKeySource = cachedDevKeys{cache: srstest.Cache(t)}
	benchParamsSource = func(backend.Backend) pipeline.ParamsSource { return cachedDevParams{cache: srstest.Cache(t)} }
	defer func() { benchKeySource, benchParamsSource = saved, savedParams }()
	var out bytes.Buffer
	app := &cli.App{Name: "snarkpipe", Commands: []*cli.Command{benchCmd}, Writer: &out, ErrWriter: &out}
	err := app.RunContext(context.Background(), append(append([]string{"snarkpipe", "bench"}, args...), "--cpu", "--progress", "0"))
	return out.String(), err
}

// tableRows returns the per-partition table's data rows (the lines after its header up
// to the mean row).
func tableRows(t *testing.T, out string) []string {
	t.Helper()
	i := strings.Index(out, "per partition")
	if i < 0 {
		t.Fatalf("no per-partition table:\n%s", out)
	}
	lines := strings.Split(out[i:], "\n")[2:] // title, header
	var rows []string
	data := regexp.MustCompile(`^\s+\d+\s+\d+\s+\d+\s`)
	for _, l := range lines {
		if !data.MatchString(l) {
			break
		}
		rows = append(rows, l)
	}
	return rows
}

// benchAndCheck runs one bench and checks the outcome: exit OK, every proof reported
// verified, one table row per partition, and JSON with the same counts.
func benchAndCheck(t *testing.T, kind string, proofs, partitions int, extra ...string) benchResult {
	t.Helper()
	jsonPath := filepath.Join(t.TempDir(), "bench.json")
	tracePath := filepath.Join(t.TempDir(), "bench.trace")
	args := append([]string{kind, "--size", "2KiB", "--proofs", strconv.Itoa(proofs), "--json", jsonPath, "--trace", tracePath}, extra...)
	out, err := runBenchCmd(t, args...)
	if err != nil {
		t.Fatalf("bench %v: %v\n%s", args, err, out)
	}
	if !strings.Contains(out, "backend: cpu") || !strings.Contains(out, "INSECURE") {
		t.Errorf("output does not say the backend and the insecure keys:\n%s", out)
	}
	want := "proofs verified       " + strconv.Itoa(proofs) + " of " + strconv.Itoa(proofs)
	if !strings.Contains(out, want) {
		t.Errorf("output lacks %q:\n%s", want, out)
	}
	if got := len(tableRows(t, out)); got != partitions {
		t.Errorf("%d partition rows, want %d:\n%s", got, partitions, out)
	}
	raw, err := os.ReadFile(jsonPath)
	if err != nil {
		t.Fatal(err)
	}
	var res benchResult
	if err := json.Unmarshal(raw, &res); err != nil {
		t.Fatalf("--json output does not parse: %v\n%s", err, raw)
	}
	if res.Proofs != proofs || res.Verified != proofs || len(res.ProofRows) != proofs || len(res.Rows) != partitions {
		t.Errorf("json: %d proofs, %d verified, %d proof rows, %d partition rows; want %d, %d, %d, %d",
			res.Proofs, res.Verified, len(res.ProofRows), len(res.Rows), proofs, proofs, proofs, partitions)
	}
	for _, r := range res.Rows {
		if r.Total <= 0 || r.Device <= 0 || r.Device > r.Total {
			t.Errorf("partition row with implausible times: %+v", r)
		}
	}
	if res.Memory.HostRSS == 0 {
		t.Error("no peak host RSS measured")
	}
	trace, err := os.ReadFile(tracePath)
	if err != nil || !json.Valid(trace) || !bytes.Contains(trace, []byte(`"prove"`)) {
		t.Errorf("trace missing, invalid or without prove spans (%v): %.200s", err, trace)
	}
	return res
}

// TestBenchWindow2KiB: two Window PoSt proofs, one partition each, submitted at once.
func TestBenchWindow2KiB(t *testing.T) {
	res := benchAndCheck(t, "window", 2, 2)
	if res.SteadyState <= 0 || res.PerHour <= 0 {
		t.Errorf("no steady-state figures for two proofs: %+v", res)
	}
	if res.Setup.Preload <= 0 || len(res.Setup.KeyGens) != 1 {
		t.Errorf("setup not measured: %+v", res.Setup)
	}
}

// TestBenchWindowPartitions2KiB: --partitions 2 makes one proof of two partition requests.
func TestBenchWindowPartitions2KiB(t *testing.T) {
	res := benchAndCheck(t, "window", 1, 2, "--partitions", "2", "--sequential")
	if res.Requests != 2 || res.ProofRows[0].Jobs == "" || !strings.Contains(res.ProofRows[0].Jobs, " ") {
		t.Errorf("one proof of two requests expected: %+v", res.ProofRows)
	}
}

// TestBenchWinning2KiB: one Winning PoSt proof.
func TestBenchWinning2KiB(t *testing.T) {
	benchAndCheck(t, "winning", 1, 1)
}

// TestBenchPoRep2KiB: two 2 KiB PoRep C2 proofs (one partition each; 2.7 M rows, 2^22
// domain: minutes on 2 cores, not under -short).
func TestBenchPoRep2KiB(t *testing.T) {
	if testing.Short() {
		t.Skip("2 KiB PoRep C2 on the CPU: minutes (2.7 M rows, 2^22 domain); run without -short")
	}
	benchAndCheck(t, "porep", 2, 2)
}

// TestBenchSnap2KiB: one 2 KiB SnapDeals proof (1.7 M rows; minutes on 2 cores, not under
// -short); its proof bytes are checked against inputs from the commitments.
func TestBenchSnap2KiB(t *testing.T) {
	if testing.Short() {
		t.Skip("2 KiB SnapDeals proof on the CPU: minutes (1.7 M rows, 2^21 domain); run without -short")
	}
	res := benchAndCheck(t, "snap", 1, 1)
	if !strings.HasPrefix(res.CheckedBy, "bench:") {
		t.Errorf("snap proof bytes not checked by the bench: %q", res.CheckedBy)
	}
}

// TestBenchWindowHostKeys2KiB: with --host-keys the keys are host parameters, loaded
// onto the device by copying; the proofs verify as with keys made on the device.
func TestBenchWindowHostKeys2KiB(t *testing.T) {
	res := benchAndCheck(t, "window", 2, 2, "--host-keys")
	if len(res.Setup.KeyGens) != 1 || res.Setup.KeyGens[0].Device != "host" {
		t.Errorf("--host-keys: key generations %+v, want one on the host", res.Setup.KeyGens)
	}
}

// TestBenchPoRepWindowDuring2KiB: --window-during preloads the Window PoSt circuit, then
// sends one Window PoSt partition after the first of two C2 proofs; it is verified and
// reported with its time split and the device's loads and evictions (minutes: C2 on the
// CPU, not under -short).
func TestBenchPoRepWindowDuring2KiB(t *testing.T) {
	if testing.Short() {
		t.Skip("2 KiB PoRep C2 on the CPU: minutes; run without -short")
	}
	res := benchAndCheck(t, "porep", 2, 2, "--window-during", "--host-keys")
	w := res.Window
	if w == nil || !w.Verified || w.Error != "" || w.Partition == nil || w.AfterProof < 1 || w.Latency <= 0 ||
		len(w.Loads[0]) != 1 || len(w.Loads[1]) != 1 || w.Loads[1][0] < w.Loads[0][0] {
		t.Fatalf("window during C2: %+v", w)
	}
	t.Logf("window during C2: after proof %d, latency %.3f s, loads %v, evictions %v; partition %+v", w.AfterProof, w.Latency, w.Loads, w.Evictions, *w.Partition)
}

// TestBenchRefusesBadInput: a bad --size names the valid ones; 32 GiB on the CPU needs
// --allow-cpu-large; --partitions is for window only.
func TestBenchRefusesBadInput(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"porep", "--size", "3KiB"}, "2KiB, 8MiB, 512MiB, 32GiB, 64GiB"},
		{[]string{"porep", "--size", "32GiB"}, "--allow-cpu-large"},
		{[]string{"winning", "--size", "2KiB", "--proofs", "0"}, "--proofs 0"},
		{[]string{"window", "--size", "2KiB", "--partitions", "0"}, "--partitions 0"},
		{[]string{"porep", "--size", "2KiB", "--window-during", "--sequential"}, "--window-during"},
		{[]string{"porep", "--size", "2KiB", "--window-during", "--cold"}, "--window-during"},
		{[]string{"winning", "--size", "2KiB", "--key-device", "1"}, "--key-device"},
	} {
		out, err := runBenchCmd(t, tc.args...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("bench %v: error %v, want one containing %q\n%s", tc.args, err, tc.want, out)
		}
	}
	if _, err := runBenchCmd(t, "porep", "--size", "3KiB"); !errors.Is(err, errBenchSize) {
		t.Errorf("bad size: %v, want errBenchSize", err)
	}
}
