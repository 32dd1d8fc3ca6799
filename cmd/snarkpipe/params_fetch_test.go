package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/snarkpipe/snarkpipe/prover/groth16"
	"github.com/snarkpipe/snarkpipe/prover/srs"
	"github.com/snarkpipe/snarkpipe/types"
)

func runCLI(t *testing.T, args ...string) (string, error) {
	t.Helper()
	var out bytes.Buffer
	app := newApp()
	app.Writer, app.ErrWriter = &out, &out
	err := app.RunContext(context.Background(), append([]string{"snarkpipe"}, args...))
	return out.String(), err
}

// upstreamManifest reads the fixture parameters.json (skipping without it).
func upstreamManifest(t *testing.T) map[string]types.ParamFile {
	b, err := os.ReadFile(filepath.Join("..", "..", "..", "shared", "testdata", "upstream", "parameters.json"))
	if os.IsNotExist(err) {
		t.Skip("upstream parameters.json not present (expected under ../shared/testdata/upstream)")
	}
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]types.ParamFile
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestParamsFetchDryRun32GiB: `params fetch --dry-run` (the default size, 32 GiB) lists
// the .params and .vk of the four 32 GiB circuits snarkpipe proves, as upstream's
// parameters.json names them, with their sizes and total, and touches no network.
func TestParamsFetchDryRun32GiB(t *testing.T) {
	manifest := upstreamManifest(t)
	// Expected from the fixture: every 32 GiB file except the empty-sector-update-poseidon
	// circuit's (a proof type snarkpipe does not have).
	var want []string
	for name, e := range manifest {
		if e.SectorSize == types.SectorSize32GiB && !strings.Contains(name, "empty-sector-update-poseidon") {
			want = append(want, name)
		}
	}
	sort.Strings(want)
	if len(want) != 8 {
		t.Fatalf("fixture has %d such files, want 8", len(want))
	}
	t.Setenv(envIPFSGateway, "http://127.0.0.1:1/never-used/")
	dir := t.TempDir()
	out, err := runCLI(t, "params", "fetch", "--dry-run", "--dir", dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	var sum int64
	rows := regexp.MustCompile(`(?m)^ *(\d+)  missing  (\S+) +(v28-\S+)$`)
	for _, m := range rows.FindAllStringSubmatch(out, -1) {
		got = append(got, m[3])
		n, _ := strconv.ParseInt(m[1], 10, 64)
		sum += n
	}
	sort.Strings(got)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("dry run lists\n%s\nwant\n%s\noutput:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"), out)
	}
	// porep-32g 47,373,928,632 + 32,356; wpost-32g 60,780,374,232 + 2,481,508;
	// snap-32g 34,453,501,368 + 1,348; winning-32g 192,050,232 + 13,636.
	const total = 142_802_383_312
	if sum != total || !strings.Contains(out, "8 files, 142802383312 bytes (142.8 GB); 0 present") ||
		!strings.Contains(out, "gateway http://127.0.0.1:1/never-used/") {
		t.Fatalf("total %d, want %d; output:\n%s", sum, total, out)
	}
	// Proof types select their circuits only; a partial file is shown.
	os.WriteFile(filepath.Join(dir, got[0]+".part"), []byte("12345"), 0o644)
	out, err = runCLI(t, "params", "fetch", "--dry-run", "--dir", dir, "--proof-types", "StackedDrg32GiBV1_1,update:StackedDrg32GiBV1")
	if err != nil || !strings.Contains(out, "4 files, 81827463704 bytes") {
		t.Fatalf("%v\n%s", err, out)
	}
	if _, err := runCLI(t, "params", "fetch", "--dry-run", "--proof-types", "StackedDrg3GiB"); err == nil || !strings.Contains(err.Error(), "unknown proof type") {
		t.Fatalf("unknown proof type: %v", err)
	}
	if _, err := runCLI(t, "params", "fetch", "--dry-run", "--size", "1TiB"); err == nil || !strings.Contains(err.Error(), "unknown --size") {
		t.Fatalf("unknown size: %v", err)
	}
}

// TestParamFileSizesFromCounts recomputes the size of every official file of the 20
// circuits from the counts pinned in the sealer golden files (bellperson layout), so
// that types' size table cannot drift from the circuits.
func TestParamFileSizesFromCounts(t *testing.T) {
	counts := map[string]groth16.ShapeCounts{}
	for _, pkg := range []string{"porep", "post", "update"} {
		b, err := os.ReadFile(filepath.Join("..", "..", "sealer", pkg, "testdata", "counts.golden"))
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(b), "\n") {
			fields := strings.Fields(line)
			if len(fields) == 0 || strings.HasPrefix(fields[0], "#") {
				continue
			}
			v := map[string]int{}
			for _, kv := range fields[1:] {
				k, n, _ := strings.Cut(kv, "=")
				v[k], _ = strconv.Atoi(n)
			}
			domain := 1
			for domain < v["rows"]+v["inputs"] {
				domain *= 2
			}
			counts[fields[0]] = groth16.ShapeCounts{Inputs: v["inputs"], Aux: v["aux"], DomainSize: domain, AAux: v["a_aux"], BInput: v["b_input"], BAux: v["b_aux"]}
		}
	}
	checked := 0
	for id, params := range officialNames() {
		c, ok := counts[string(id)]
		if !ok {
			t.Fatalf("no golden counts for %s", id)
		}
		files, err := types.ParamFilesOf(params)
		if err != nil {
			t.Fatal(err)
		}
		if want := c.ParamsFileSize(false); files[0].Size != want {
			t.Errorf("%s: .params %d bytes, counts say %d", id, files[0].Size, want)
		}
		if want := int64(864 + 4 + 96*c.Inputs); files[1].Size != want {
			t.Errorf("%s: .vk %d bytes, counts say %d", id, files[1].Size, want)
		}
		checked++
	}
	if checked != 20 {
		t.Fatalf("%d circuits checked, want 20", checked)
	}
}

// TestParamsFetchCommand runs the command's fetch path against a loopback gateway named
// by $IPFS_GATEWAY: real wpost-2k names and CIDs, fake content, so the digests fail and
// the command reports the mismatch by file name after fetching it twice. The plain
// progress lines and the summary are checked on a run whose digests match.
func TestParamsFetchCommand(t *testing.T) {
	upstreamManifest(t)
	var mu sync.Mutex
	var paths []string
	gw := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		paths = append(paths, r.URL.Path)
		mu.Unlock()
		w.Write([]byte("not a parameter file"))
	}))
	defer gw.Close()
	t.Setenv(envIPFSGateway, gw.URL+"/ipfs/")
	dir := t.TempDir()
	_, err := runCLI(t, "params", "fetch", "--dir", dir, "--proof-types", "wpost-2k")
	var mismatch *srs.DigestMismatchError
	if !errors.As(err, &mismatch) || !strings.Contains(err.Error(), "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0-0170db1f") {
		t.Fatalf("error %v, want a digest mismatch naming the wpost-2k file", err)
	}
	vk, _ := types.ParamFileInfo(strings.TrimSuffix(officialNames()["wpost-2k"], ".params") + ".vk")
	mu.Lock()
	n := 0
	for _, p := range paths {
		if p == "/ipfs/"+vk.CID {
			n++
		}
	}
	mu.Unlock()
	if n != 2 || len(paths) != 4 {
		t.Fatalf("requests %v: want each of the 2 files fetched twice from $IPFS_GATEWAY", paths)
	}

	// A run that succeeds: plain progress lines, one line per file, the summary.
	content := map[string][]byte{"QmA": bytes.Repeat([]byte("a"), 3<<20), "QmB": []byte("b")}
	ok := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(content[strings.TrimPrefix(r.URL.Path, "/ipfs/")]))
	}))
	defer ok.Close()
	plan := []plannedFile{
		{types.ParamFile{Name: "a.params", CID: "QmA", Digest: groth16.Digest(content["QmA"]), Size: 3 << 20}, "test-a"},
		{types.ParamFile{Name: "b.vk", CID: "QmB", Digest: groth16.Digest(content["QmB"]), Size: 1}, "test-b"},
	}
	cfg := srs.DefaultFetchConfig()
	cfg.Dir, cfg.Gateway = t.TempDir(), ok.URL+"/ipfs/"
	var out, progress bytes.Buffer
	if err := runFetch(context.Background(), &out, &progress, false, cfg, plan); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"fetched a.params (3.1 MB in", "fetched b.vk (1 B in", "parameter files (2): done in"} {
		if !strings.Contains(progress.String(), want) {
			t.Errorf("progress lacks %q:\n%s", want, progress.String())
		}
	}
	if strings.Contains(progress.String(), "\r") || !strings.Contains(out.String(), "2 fetched, 0 already present, 0 failed; 3.1 MB downloaded") {
		t.Errorf("output:\n%s\nprogress:\n%s", out.String(), progress.String())
	}
	// Again: both present; on a terminal the bar shows the amounts.
	out.Reset()
	progress.Reset()
	if err := runFetch(context.Background(), &out, &progress, true, cfg, plan); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "0 fetched, 2 already present") || !strings.Contains(progress.String(), "ok a.params (present, digest checked)") ||
		!strings.Contains(progress.String(), "\r") || !strings.Contains(progress.String(), "3.1 MB/3.1 MB") {
		t.Errorf("output:\n%s\nprogress:\n%q", out.String(), progress.String())
	}
}

// TestParamsFetchUnreachableGateway: a closed port is reported with the URL and how to
// choose another gateway.
func TestParamsFetchUnreachableGateway(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	cfg := srs.DefaultFetchConfig()
	cfg.Dir, cfg.Gateway, cfg.RetryDelay = t.TempDir(), "http://"+addr+"/ipfs/", time.Millisecond
	plan := []plannedFile{{types.ParamFile{Name: "x.vk", CID: "QmX", Digest: strings.Repeat("0", 32), Size: 10}, "x"}}
	var out, progress bytes.Buffer
	err = runFetch(context.Background(), &out, &progress, false, cfg, plan)
	for _, want := range []string{fmt.Sprintf("cannot reach http://%s/ipfs/QmX", addr), "--gateway URL or $IPFS_GATEWAY"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v lacks %q", err, want)
		}
	}
	if !strings.Contains(progress.String(), "FAILED x.vk: cannot reach") {
		t.Errorf("progress:\n%s", progress.String())
	}
}

// TestParamsFetchInterrupted: a cancelled fetch (Ctrl-C) says that partial files are kept.
func TestParamsFetchInterrupted(t *testing.T) {
	gw := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer gw.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	cfg := srs.DefaultFetchConfig()
	cfg.Dir, cfg.Gateway = t.TempDir(), gw.URL+"/ipfs/"
	plan := []plannedFile{{types.ParamFile{Name: "x.vk", CID: "QmX", Digest: strings.Repeat("0", 32), Size: 10}, "x"}}
	var out, progress bytes.Buffer
	if err := runFetch(ctx, &out, &progress, false, cfg, plan); err == nil || !strings.Contains(err.Error(), "interrupted; partial downloads are kept as NAME.part in "+cfg.Dir) {
		t.Fatalf("error %v", err)
	}
}
