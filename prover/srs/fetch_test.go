package srs

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/snarkpipe/snarkpipe/prover/groth16"
)

// testGateway is a loopback IPFS gateway: it serves each file's bytes at /ipfs/CID
// (with Range support, as http.ServeContent gives it), logs the requests, and lets a test
// take over any request through hook.
type testGateway struct {
	*httptest.Server
	files map[string][]byte // cid → content

	mu       sync.Mutex
	requests []gwRequest
	inFlight atomic.Int32
	maxPar   atomic.Int32
	// hook, when set, handles request n (0-based, per CID) and returns true, or returns
	// false to let the file be served normally.
	hook func(w http.ResponseWriter, r *http.Request, cid string, n int) bool
	// delay is spent before each answer (to make parallel requests overlap).
	delay time.Duration
}

type gwRequest struct{ cid, rangeHeader string }

func newTestGateway(t *testing.T, files []RemoteFile, content [][]byte) *testGateway {
	g := &testGateway{files: map[string][]byte{}}
	for i, f := range files {
		g.files[f.CID] = content[i]
	}
	g.Server = httptest.NewServer(http.HandlerFunc(g.serve))
	t.Cleanup(g.Close)
	return g
}

func (g *testGateway) serve(w http.ResponseWriter, r *http.Request) {
	cid, ok := strings.CutPrefix(r.URL.Path, "/ipfs/")
	data, known := g.files[cid]
	if !ok || !known {
		http.NotFound(w, r)
		return
	}
	g.mu.Lock()
	n := 0
	for _, q := range g.requests {
		if q.cid == cid {
			n++
		}
	}
	g.requests = append(g.requests, gwRequest{cid, r.Header.Get("Range")})
	g.mu.Unlock()
	par := g.inFlight.Add(1)
	defer g.inFlight.Add(-1)
	for old := g.maxPar.Load(); par > old && !g.maxPar.CompareAndSwap(old, par); old = g.maxPar.Load() {
	}
	time.Sleep(g.delay)
	if g.hook != nil && g.hook(w, r, cid, n) {
		return
	}
	http.ServeContent(w, r, cid, time.Time{}, bytes.NewReader(data))
}

func (g *testGateway) requestsFor(cid string) []gwRequest {
	g.mu.Lock()
	defer g.mu.Unlock()
	var out []gwRequest
	for _, q := range g.requests {
		if q.cid == cid {
			out = append(out, q)
		}
	}
	return out
}

// testFiles makes n files of size bytes each (random, seeded) with their digests.
func testFiles(n, size int, seed uint64) ([]RemoteFile, [][]byte) {
	rng := rand.New(rand.NewPCG(seed, 7))
	var files []RemoteFile
	var content [][]byte
	for i := range n {
		b := make([]byte, size+i*1000)
		for j := range b {
			b[j] = byte(rng.Uint32())
		}
		files = append(files, RemoteFile{
			Name: fmt.Sprintf("v28-test-%d.params", i), CID: fmt.Sprintf("QmTest%d", i),
			Digest: groth16.Digest(b), Size: int64(len(b)),
		})
		content = append(content, b)
	}
	return files, content
}

func testConfig(g *testGateway, dir string) FetchConfig {
	c := DefaultFetchConfig()
	c.Gateway = g.URL + "/ipfs/"
	c.Dir = dir
	c.RetryDelay = time.Millisecond
	c.StallTimeout = 10 * time.Second
	return c
}

// checkDir asserts that dir holds exactly the given files with their content, and no
// partial or lock file.
func checkDir(t *testing.T, dir string, files []RemoteFile, content [][]byte) {
	t.Helper()
	for i, f := range files {
		got, err := os.ReadFile(filepath.Join(dir, f.Name))
		if err != nil || !bytes.Equal(got, content[i]) {
			t.Errorf("%s: %d bytes, want %d (%v)", f.Name, len(got), len(content[i]), err)
		}
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != len(files) {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("directory holds %v, want only the %d files", names, len(files))
	}
}

func TestFetchParallel(t *testing.T) {
	files, content := testFiles(6, 200_000, 1)
	g := newTestGateway(t, files, content)
	g.delay = 50 * time.Millisecond
	dir := t.TempDir()
	cfg := testConfig(g, dir)
	cfg.Parallel = 3
	var events sync.Map
	res, err := Fetch(context.Background(), cfg, files, func(e FetchEvent) { events.Store(e.Kind, true) })
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range res {
		if r.State != StateFetched || r.File.Name != files[i].Name || r.Downloaded != files[i].Size || r.Requests != 1 {
			t.Errorf("%s: %+v", files[i].Name, r)
		}
	}
	checkDir(t, dir, files, content)
	if m := g.maxPar.Load(); m < 2 || m > 3 {
		t.Errorf("%d requests at once, want 2..3 (Parallel 3)", m)
	}
	for _, k := range []EventKind{EventStart, EventProgress, EventDone} {
		if _, ok := events.Load(k); !ok {
			t.Errorf("no event of kind %d", k)
		}
	}
	// A second run finds every file intact and asks the gateway nothing.
	before := len(g.requests)
	res, err = Fetch(context.Background(), cfg, files, nil)
	if err != nil || len(g.requests) != before {
		t.Fatalf("second run: %v, %d new requests", err, len(g.requests)-before)
	}
	for _, r := range res {
		if r.State != StatePresent {
			t.Errorf("second run: %s %s", r.File.Name, r.State)
		}
	}
}

// TestFetchResumesCutTransfer: the gateway drops the first answer midway; the second
// request carries Range from where the file stopped and the file ends up intact. A
// NAME.part left by an earlier run is resumed the same way.
func TestFetchResumesCutTransfer(t *testing.T) {
	files, content := testFiles(1, 3_000_000, 2)
	f := files[0]
	g := newTestGateway(t, files, content)
	g.hook = func(w http.ResponseWriter, r *http.Request, cid string, n int) bool {
		if n > 0 {
			return false
		}
		w.Header().Set("Content-Length", fmt.Sprint(len(content[0])))
		w.WriteHeader(http.StatusOK)
		w.Write(content[0][:len(content[0])/2])
		w.(http.Flusher).Flush()
		panic(http.ErrAbortHandler) // cut the connection
	}
	dir := t.TempDir()
	var retries atomic.Int32
	res, err := Fetch(context.Background(), testConfig(g, dir), files, func(e FetchEvent) {
		if e.Kind == EventRetry {
			retries.Add(1)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	reqs := g.requestsFor(f.CID)
	if len(reqs) != 2 || reqs[0].rangeHeader != "" {
		t.Fatalf("requests %+v, want a plain one and a resumed one", reqs)
	}
	var from int
	if _, err := fmt.Sscanf(reqs[1].rangeHeader, "bytes=%d-", &from); err != nil || from <= 0 || from > len(content[0])/2 {
		t.Fatalf("second request's Range %q, want bytes=N- with 0 < N <= %d", reqs[1].rangeHeader, len(content[0])/2)
	}
	if res[0].State != StateFetched || res[0].Requests != 2 || res[0].Downloaded != f.Size || retries.Load() != 1 {
		t.Fatalf("result %+v, %d retries", res[0], retries.Load())
	}
	checkDir(t, dir, files, content)

	t.Run("part left by an earlier run", func(t *testing.T) {
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, f.Name+".part"), content[0][:1000], 0o644)
		g.hook = nil
		res, err := Fetch(context.Background(), testConfig(g, dir), files, nil)
		if err != nil {
			t.Fatal(err)
		}
		reqs := g.requestsFor(f.CID)
		if last := reqs[len(reqs)-1]; last.rangeHeader != "bytes=1000-" {
			t.Fatalf("Range %q, want bytes=1000-", last.rangeHeader)
		}
		if res[0].ResumedFrom != 1000 || res[0].Downloaded != f.Size-1000 {
			t.Fatalf("result %+v", res[0])
		}
		checkDir(t, dir, files, content)
	})
}

// TestFetchStalledTransfer: a transfer that stops sending without closing is cut after
// StallTimeout and resumed.
func TestFetchStalledTransfer(t *testing.T) {
	files, content := testFiles(1, 200_000, 12)
	g := newTestGateway(t, files, content)
	g.hook = func(w http.ResponseWriter, r *http.Request, cid string, n int) bool {
		if n > 0 {
			return false
		}
		w.Header().Set("Content-Length", fmt.Sprint(len(content[0])))
		w.Write(content[0][:50_000])
		w.(http.Flusher).Flush()
		<-r.Context().Done() // hang until the client gives up
		return true
	}
	dir := t.TempDir()
	cfg := testConfig(g, dir)
	cfg.StallTimeout = 200 * time.Millisecond
	var retryErr atomic.Pointer[error]
	res, err := Fetch(context.Background(), cfg, files, func(e FetchEvent) {
		if e.Kind == EventRetry {
			retryErr.Store(&e.Err)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	reqs := g.requestsFor(files[0].CID)
	if len(reqs) != 2 || reqs[1].rangeHeader != "bytes=50000-" || res[0].Requests != 2 {
		t.Fatalf("requests %+v", reqs)
	}
	if e := retryErr.Load(); e == nil || !errors.Is(*e, errStalled) {
		t.Fatalf("retry event error %v, want the stall", e)
	}
	checkDir(t, dir, files, content)
}

// TestFetchGatewayIgnoresRange: a gateway that answers a Range request with the whole
// file (200) gets the partial file replaced, not appended to, in one request.
func TestFetchGatewayIgnoresRange(t *testing.T) {
	files, content := testFiles(1, 100_000, 11)
	g := newTestGateway(t, files, content)
	g.hook = func(w http.ResponseWriter, r *http.Request, cid string, n int) bool {
		w.Write(content[0]) // no Range support
		return true
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, files[0].Name+".part"), content[0][:777], 0o644)
	res, err := Fetch(context.Background(), testConfig(g, dir), files, nil)
	if err != nil {
		t.Fatal(err)
	}
	reqs := g.requestsFor(files[0].CID)
	if len(reqs) != 1 || reqs[0].rangeHeader != "bytes=777-" || res[0].Downloaded != files[0].Size {
		t.Fatalf("requests %+v, result %+v", reqs, res[0])
	}
	checkDir(t, dir, files, content)
}

// corrupt serves the file with one byte flipped.
func corrupt(w http.ResponseWriter, r *http.Request, data []byte) {
	bad := bytes.Clone(data)
	bad[len(bad)/3] ^= 1
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(bad))
}

// TestFetchRefetchesCorruptDownload: a download whose digest is wrong is fetched again
// from scratch (no Range), and the second, intact copy is kept.
func TestFetchRefetchesCorruptDownload(t *testing.T) {
	files, content := testFiles(1, 500_000, 3)
	g := newTestGateway(t, files, content)
	g.hook = func(w http.ResponseWriter, r *http.Request, cid string, n int) bool {
		if n == 0 {
			corrupt(w, r, content[0])
			return true
		}
		return false
	}
	dir := t.TempDir()
	var refetch atomic.Pointer[FetchEvent]
	res, err := Fetch(context.Background(), testConfig(g, dir), files, func(e FetchEvent) {
		if e.Kind == EventRefetch {
			refetch.Store(&e)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	reqs := g.requestsFor(files[0].CID)
	if len(reqs) != 2 || reqs[1].rangeHeader != "" {
		t.Fatalf("requests %+v, want two whole-file requests", reqs)
	}
	var mismatch *DigestMismatchError
	if e := refetch.Load(); e == nil || !errors.As(e.Err, &mismatch) || mismatch.Want != files[0].Digest || mismatch.Downloads != 1 {
		t.Fatalf("refetch event %+v", e)
	}
	if res[0].State != StateFetched {
		t.Fatalf("result %+v", res[0])
	}
	checkDir(t, dir, files, content)
}

// TestFetchReportsDigestMismatch: a gateway that always serves other bytes gives a typed
// error naming the file, the expected and the actual digest, after two downloads, and
// leaves nothing behind.
func TestFetchReportsDigestMismatch(t *testing.T) {
	files, content := testFiles(2, 100_000, 4)
	g := newTestGateway(t, files, content)
	g.hook = func(w http.ResponseWriter, r *http.Request, cid string, n int) bool {
		if cid == files[0].CID {
			corrupt(w, r, content[0])
			return true
		}
		return false
	}
	dir := t.TempDir()
	res, err := Fetch(context.Background(), testConfig(g, dir), files, nil)
	var mismatch *DigestMismatchError
	if !errors.As(err, &mismatch) || !errors.Is(err, groth16.ErrDigestMismatch) {
		t.Fatalf("error %v, want a DigestMismatchError", err)
	}
	bad := content[0]
	bad[len(bad)/3] ^= 1
	if mismatch.Name != files[0].Name || mismatch.Want != files[0].Digest || mismatch.Got != groth16.Digest(bad) || mismatch.Downloads != 2 {
		t.Fatalf("mismatch %+v", mismatch)
	}
	for _, want := range []string{files[0].Name, files[0].Digest, mismatch.Got} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %s", err, want)
		}
	}
	if n := len(g.requestsFor(files[0].CID)); n != 2 {
		t.Errorf("%d requests, want 2", n)
	}
	if res[0].State != StateFailed || res[1].State != StateFetched {
		t.Errorf("states %s, %s", res[0].State, res[1].State)
	}
	checkDir(t, dir, files[1:], content[1:])
}

// TestFetchUnreachableGateway: a closed port gives a GatewayError that names the URL.
func TestFetchUnreachableGateway(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	files, _ := testFiles(1, 10, 5)
	cfg := DefaultFetchConfig()
	cfg.Gateway, cfg.Dir, cfg.RetryDelay, cfg.Attempts = "http://"+addr+"/ipfs", t.TempDir(), time.Millisecond, 2
	res, err := Fetch(context.Background(), cfg, files, nil)
	var ge *GatewayError
	if !errors.As(err, &ge) || ge.URL != "http://"+addr+"/ipfs/"+files[0].CID {
		t.Fatalf("error %v, want a GatewayError for %s", err, addr)
	}
	if !strings.Contains(err.Error(), "cannot reach http://"+addr) || res[0].Requests != 2 {
		t.Fatalf("error %q after %d requests", err, res[0].Requests)
	}
}

// TestFetchHTTPStatus: a 404 is reported at once with the URL and status; a 503 is
// retried.
func TestFetchHTTPStatus(t *testing.T) {
	files, content := testFiles(2, 1000, 6)
	g := newTestGateway(t, files, content)
	g.hook = func(w http.ResponseWriter, r *http.Request, cid string, n int) bool {
		switch {
		case cid == files[0].CID:
			http.Error(w, "no such block", http.StatusNotFound)
		case n == 0:
			http.Error(w, "busy", http.StatusServiceUnavailable)
		default:
			return false
		}
		return true
	}
	res, err := Fetch(context.Background(), testConfig(g, t.TempDir()), files, nil)
	var he *HTTPStatusError
	if !errors.As(err, &he) || he.StatusCode != 404 || !strings.Contains(err.Error(), "/ipfs/"+files[0].CID+": 404 Not Found") {
		t.Fatalf("error %v", err)
	}
	if res[0].Requests != 1 || res[1].State != StateFetched || res[1].Requests != 2 {
		t.Fatalf("results %+v", res)
	}
}

// TestFetchLockOneWriter: two fetches of the same file at once (as two processes would:
// each opens the lock file itself) download it once; the second waits for the lock and
// then finds the file intact.
func TestFetchLockOneWriter(t *testing.T) {
	files, content := testFiles(1, 300_000, 8)
	g := newTestGateway(t, files, content)
	release := make(chan struct{})
	g.hook = func(w http.ResponseWriter, r *http.Request, cid string, n int) bool {
		<-release
		return false
	}
	dir := t.TempDir()
	cfg := testConfig(g, dir)
	waiting := make(chan struct{})
	var wg sync.WaitGroup
	results := make([][]FetchResult, 2)
	errs := make([]error, 2)
	for i := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i], errs[i] = Fetch(context.Background(), cfg, files, func(e FetchEvent) {
				if e.Kind == EventWaiting {
					close(waiting)
				}
			})
		}()
	}
	select {
	case <-waiting:
	case <-time.After(10 * time.Second):
		t.Fatal("neither fetch waited for the other's lock")
	}
	close(release)
	wg.Wait()
	if errs[0] != nil || errs[1] != nil {
		t.Fatal(errs)
	}
	states := []FetchState{results[0][0].State, results[1][0].State}
	if !(states[0] == StateFetched && states[1] == StatePresent || states[0] == StatePresent && states[1] == StateFetched) {
		t.Fatalf("states %v, want one fetched and one present", states)
	}
	if n := len(g.requestsFor(files[0].CID)); n != 1 {
		t.Fatalf("%d downloads, want 1", n)
	}
	checkDir(t, dir, files, content)
}

// TestFetchPresentFiles: an intact file is kept without a request; a damaged one is
// replaced.
func TestFetchPresentFiles(t *testing.T) {
	files, content := testFiles(2, 10_000, 9)
	g := newTestGateway(t, files, content)
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, files[0].Name), content[0], 0o644)
	os.WriteFile(filepath.Join(dir, files[1].Name), content[1][:5000], 0o644)
	var damaged []string
	var mu sync.Mutex
	res, err := Fetch(context.Background(), testConfig(g, dir), files, func(e FetchEvent) {
		if e.Kind == EventDamaged {
			mu.Lock()
			damaged = append(damaged, e.Err.Error())
			mu.Unlock()
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(damaged) != 1 || !strings.Contains(damaged[0], files[1].Name+": digest ") {
		t.Errorf("damaged events %q", damaged)
	}
	if res[0].State != StatePresent || len(g.requestsFor(files[0].CID)) != 0 || res[1].State != StateFetched {
		t.Fatalf("results %+v", res)
	}
	checkDir(t, dir, files, content)
}

// TestFetchNoRoom: files that cannot fit the free space are refused before any request.
func TestFetchNoRoom(t *testing.T) {
	if _, ok := freeSpace(t.TempDir()); !ok {
		t.Skip("free space unknown on this system")
	}
	files, content := testFiles(1, 10, 10)
	g := newTestGateway(t, files, content)
	files[0].Size = 1 << 60
	_, err := Fetch(context.Background(), testConfig(g, t.TempDir()), files, nil)
	var full *DiskFullError
	if !errors.As(err, &full) || full.Need != 1<<60 || !strings.Contains(err.Error(), "not enough space") || len(g.requests) != 0 {
		t.Fatalf("error %v, %d requests", err, len(g.requests))
	}
	if err := diskError("/x", &os.PathError{Op: "write", Path: "/x/f", Err: syscall.ENOSPC}); !errors.As(err, &full) {
		t.Fatalf("ENOSPC not typed: %v", err)
	}
}

func TestFetchConfigValidate(t *testing.T) {
	c := DefaultFetchConfig()
	c.Dir = "/tmp/x"
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []func(*FetchConfig){
		func(c *FetchConfig) { c.Gateway = "proofs.filecoin.io/ipfs" },
		func(c *FetchConfig) { c.Gateway = "ftp://x/" },
		func(c *FetchConfig) { c.Dir = "" },
		func(c *FetchConfig) { c.Parallel = 0 },
		func(c *FetchConfig) { c.Attempts = 0 },
	} {
		c := c
		bad(&c)
		if c.Validate() == nil {
			t.Errorf("%+v accepted", c)
		}
	}
	if got := (FetchConfig{Gateway: "https://g/ipfs"}).fileURL("Qm1"); got != "https://g/ipfs/Qm1" {
		t.Errorf("fileURL %s", got)
	}
}
