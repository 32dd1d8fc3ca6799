package srs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/snarkpipe/snarkpipe/prover/groth16"
)

// DefaultGateway is the IPFS gateway lotus and Curio fetch the official parameters from
// (filecoin-project/go-paramfetch); a file is at the gateway URL followed by its CID.
const DefaultGateway = "https://proofs.filecoin.io/ipfs/"

// FetchConfig says where parameter files come from and go to.
type FetchConfig struct {
	// Gateway is the base URL of an IPFS gateway: a file is fetched from Gateway + CID
	// (a missing final slash is added).
	Gateway string
	// Dir is the parameter directory the files are written into (created if missing).
	Dir string
	// Parallel is how many files are fetched at once.
	Parallel int
	// HTTPClient makes the requests (nil: a client with connect and header timeouts but
	// no overall one: a 32 GiB PoRep .params is 47 GB).
	HTTPClient *http.Client
	// Attempts is how many requests one download may take: after a cut or stalled
	// transfer or a 5xx answer, the next request resumes where the file stopped.
	Attempts int
	// RetryDelay is the pause before the second attempt, doubled for each further one.
	RetryDelay time.Duration
	// StallTimeout cuts a transfer that has received nothing for this long (0: never);
	// the next attempt resumes it.
	StallTimeout time.Duration
}

// DefaultFetchConfig fetches from DefaultGateway, four files at a time. Dir has no
// default here: the caller applies upstream's rule (FIL_PROOFS_PARAMETER_CACHE, else
// /var/tmp/filecoin-proof-parameters).
func DefaultFetchConfig() FetchConfig {
	return FetchConfig{Gateway: DefaultGateway, Parallel: 4, Attempts: 5, RetryDelay: 2 * time.Second, StallTimeout: 2 * time.Minute}
}

// Validate reports the first setting that cannot work.
func (c FetchConfig) Validate() error {
	u, err := url.Parse(c.Gateway)
	switch {
	case err != nil:
		return fmt.Errorf("srs: gateway %q: %w", c.Gateway, err)
	case u.Scheme != "http" && u.Scheme != "https" || u.Host == "":
		return fmt.Errorf("srs: gateway %q is not an http(s) URL", c.Gateway)
	case c.Dir == "":
		return errors.New("srs: no parameter directory")
	case c.Parallel < 1:
		return fmt.Errorf("srs: parallel %d, want at least 1", c.Parallel)
	case c.Attempts < 1:
		return fmt.Errorf("srs: attempts %d, want at least 1", c.Attempts)
	case c.RetryDelay < 0 || c.StallTimeout < 0:
		return errors.New("srs: negative retry delay or stall timeout")
	}
	return nil
}

// fileURL is where the gateway serves cid.
func (c FetchConfig) fileURL(cid string) string {
	return strings.TrimSuffix(c.Gateway, "/") + "/" + cid
}

func (c FetchConfig) client() *http.Client {
	if c.HTTPClient != nil {
		return c.HTTPClient
	}
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.ResponseHeaderTimeout = time.Minute
	return &http.Client{Transport: t}
}

// RemoteFile is one file to fetch: its name in the directory, its CID at the gateway,
// its parameters.json digest and its size (0: unknown, used for progress and the free
// space check only; the digest decides).
type RemoteFile struct {
	Name, CID, Digest string
	Size              int64
}

// FetchState is how a file ended.
type FetchState int

// The states of a fetched file.
const (
	// StatePresent: the file was there with the right digest (or another process fetched
	// it while this one waited for the lock); nothing was downloaded.
	StatePresent FetchState = iota
	// StateFetched: downloaded, digest checked, renamed into place.
	StateFetched
	// StateFailed: see FetchResult.Err.
	StateFailed
)

func (s FetchState) String() string {
	return [...]string{"present", "fetched", "failed"}[s]
}

// FetchResult is the outcome of one file.
type FetchResult struct {
	File  RemoteFile
	State FetchState
	// Downloaded counts the bytes received in this run; ResumedFrom is where the first
	// request of the final download started (a NAME.part left by an earlier run).
	Downloaded, ResumedFrom int64
	// Requests counts the HTTP requests made for the file.
	Requests int
	Err      error
}

// EventKind says what a FetchEvent reports.
type EventKind int

// The events of a fetch, in the order a file meets them.
const (
	EventChecking EventKind = iota // hashing a present file (or a partial one before resuming): Done of Total bytes
	EventDamaged                   // a present file has the wrong digest (Err): it is fetched again
	EventWaiting                   // another process holds the file's lock
	EventStart                     // a request is answered: Done is where it starts, Total the file size (0: unknown)
	EventProgress                  // Done of Total bytes are on disk
	EventRetry                     // a request failed (Err); the next resumes at Done after a pause
	EventRefetch                   // the download's digest was wrong (Err): fetching it again from scratch
	EventDone                      // the file ended (FetchResult in Result)
)

// FetchEvent reports progress; Fetch calls the callback from several goroutines.
type FetchEvent struct {
	Kind        EventKind
	File        string
	Done, Total int64
	Err         error
	Result      *FetchResult
}

// GatewayError reports a gateway that could not be reached, or that broke a transfer
// off, after every attempt.
type GatewayError struct {
	URL string
	Err error
}

func (e *GatewayError) Error() string { return fmt.Sprintf("cannot reach %s: %v", e.URL, e.Err) }
func (e *GatewayError) Unwrap() error { return e.Err }

// HTTPStatusError reports a gateway answer that is not the file.
type HTTPStatusError struct {
	URL        string
	StatusCode int
	Status     string
}

func (e *HTTPStatusError) Error() string { return fmt.Sprintf("GET %s: %s", e.URL, e.Status) }

// DigestMismatchError reports a download whose content does not have the manifest's
// digest; Fetch returns it after the download was repeated from scratch once (Downloads
// is then 2).
type DigestMismatchError struct {
	Name, Want, Got string
	Downloads       int
}

func (e *DigestMismatchError) Error() string {
	msg := fmt.Sprintf("%s: digest %s, parameters.json says %s", e.Name, e.Got, e.Want)
	if e.Downloads > 1 {
		msg += fmt.Sprintf(" (downloaded %d times: the gateway serves other content under this CID)", e.Downloads)
	}
	return msg
}

// Unwrap makes errors.Is(err, groth16.ErrDigestMismatch) hold.
func (e *DigestMismatchError) Unwrap() error { return groth16.ErrDigestMismatch }

// DiskFullError reports a parameter directory without room for the files.
type DiskFullError struct {
	Dir string
	// Need and Free are the bytes still to download and the bytes available when the
	// check before the start failed (0 when the disk filled during a write).
	Need, Free int64
	Err        error
}

func (e *DiskFullError) Error() string {
	if e.Need > 0 {
		return fmt.Sprintf("not enough space in %s: %s to download, %s free", e.Dir, byteCount(e.Need), byteCount(e.Free))
	}
	return fmt.Sprintf("disk full in %s: %v (free space and fetch again: the partial file is kept and resumed)", e.Dir, e.Err)
}

func (e *DiskFullError) Unwrap() error { return e.Err }

// errStalled cuts a transfer that received nothing for StallTimeout.
var errStalled = errors.New("no data received within the stall timeout")

// Fetch brings every file into cfg.Dir, cfg.Parallel at a time, and returns one result
// per file in the order given, and the failures joined (nil when none failed).
//
// Per file: a present file whose digest matches is kept. Otherwise the file is locked
// (flock on DIR/NAME.lock, so that two processes never write it both; the lock dies with
// its process), downloaded into DIR/NAME.part (resuming a partial one with a Range
// request), its digest checked as it is written, and renamed to DIR/NAME. A wrong digest
// starts the download again from scratch once, then is reported.
func Fetch(ctx context.Context, cfg FetchConfig, files []RemoteFile, onEvent func(FetchEvent)) ([]FetchResult, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	for _, f := range files {
		if f.Name == "" || filepath.Base(f.Name) != f.Name || f.Name == "." || f.Name == ".." {
			return nil, fmt.Errorf("srs: bad parameter file name %q", f.Name)
		}
		if f.CID == "" || f.Digest == "" {
			return nil, fmt.Errorf("srs: %s has no CID or digest", f.Name)
		}
	}
	if onEvent == nil {
		onEvent = func(FetchEvent) {}
	}
	if err := os.MkdirAll(cfg.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("srs: parameter directory: %w", err)
	}
	if err := checkSpace(cfg.Dir, files); err != nil {
		return nil, err
	}
	f := &fetcher{cfg: cfg, client: cfg.client(), emit: onEvent}
	results := make([]FetchResult, len(files))
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(cfg.Parallel, len(files)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				results[i] = f.one(ctx, files[i])
				onEvent(FetchEvent{Kind: EventDone, File: files[i].Name, Result: &results[i]})
			}
		}()
	}
	for i := range files {
		next <- i
	}
	close(next)
	wg.Wait()
	var errs []error
	for _, r := range results {
		if r.Err != nil {
			errs = append(errs, r.Err)
		}
	}
	return results, errors.Join(errs...)
}

// checkSpace refuses before any download when the missing files (less their partial
// downloads) do not fit the free space; files of unknown size count nothing.
func checkSpace(dir string, files []RemoteFile) error {
	free, ok := freeSpace(dir)
	if !ok {
		return nil
	}
	var need int64
	for _, f := range files {
		if _, err := os.Stat(filepath.Join(dir, f.Name)); err == nil || f.Size <= 0 {
			continue
		}
		need += f.Size
		if fi, err := os.Stat(filepath.Join(dir, f.Name+".part")); err == nil && fi.Size() <= f.Size {
			need -= fi.Size()
		}
	}
	if need > free {
		return &DiskFullError{Dir: dir, Need: need, Free: free}
	}
	return nil
}

type fetcher struct {
	cfg    FetchConfig
	client *http.Client
	emit   func(FetchEvent)
}

// one fetches one file and says how it ended.
func (f *fetcher) one(ctx context.Context, file RemoteFile) (res FetchResult) {
	res.File = file
	fail := func(err error) FetchResult {
		res.State, res.Err = StateFailed, fmt.Errorf("%s: %w", file.Name, err)
		return res
	}
	dest := filepath.Join(f.cfg.Dir, file.Name)
	before, statErr := os.Stat(dest)
	if statErr == nil {
		ok, err := f.present(ctx, file, dest)
		if err != nil {
			return fail(err)
		}
		if ok {
			return res
		}
	}
	unlock, waited, err := lockFetch(ctx, dest+".lock", func() {
		f.emit(FetchEvent{Kind: EventWaiting, File: file.Name})
	})
	if err != nil {
		return fail(err)
	}
	defer unlock()
	// Another process may have fetched the file while this one waited for the lock.
	if after, err := os.Stat(dest); err == nil && (waited || statErr != nil || !sameVersion(before, after)) {
		ok, err := f.present(ctx, file, dest)
		if err != nil {
			return fail(err)
		}
		if ok {
			return res
		}
	}
	part := dest + ".part"
	for pass := 0; ; pass++ {
		got, err := f.download(ctx, file, part, &res)
		if err != nil {
			return fail(err)
		}
		if strings.EqualFold(got, file.Digest) {
			break
		}
		os.Remove(part)
		mismatch := &DigestMismatchError{Name: file.Name, Want: strings.ToLower(file.Digest), Got: got, Downloads: pass + 1}
		if pass == 1 {
			res.State, res.Err = StateFailed, mismatch
			return res
		}
		f.emit(FetchEvent{Kind: EventRefetch, File: file.Name, Err: mismatch})
	}
	if err := os.Rename(part, dest); err != nil {
		return fail(err)
	}
	syncDir(f.cfg.Dir)
	res.State = StateFetched
	return res
}

func sameVersion(a, b os.FileInfo) bool {
	return a != nil && b != nil && os.SameFile(a, b) && a.Size() == b.Size() && a.ModTime().Equal(b.ModTime())
}

// present hashes an existing file: true when its digest is the manifest's.
func (f *fetcher) present(ctx context.Context, file RemoteFile, path string) (bool, error) {
	d := groth16.NewDigestWriter()
	if _, err := f.hashPrefix(ctx, file.Name, path, -1, d); err != nil {
		return false, err
	}
	if got := d.Digest(); !strings.EqualFold(got, file.Digest) {
		f.emit(FetchEvent{Kind: EventDamaged, File: file.Name, Err: &DigestMismatchError{Name: file.Name, Want: strings.ToLower(file.Digest), Got: got}})
		return false, nil
	}
	return true, nil
}

// hashPrefix feeds the first n bytes of path (n < 0: all) into d, reporting
// EventChecking, and returns how many it read.
func (f *fetcher) hashPrefix(ctx context.Context, name, path string, n int64, d io.Writer) (int64, error) {
	in, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer in.Close()
	total := n
	if total < 0 {
		fi, err := in.Stat()
		if err != nil {
			return 0, err
		}
		total = fi.Size()
	}
	var r io.Reader = in
	if n >= 0 {
		r = io.LimitReader(in, n)
	}
	buf := make([]byte, 4<<20)
	var done int64
	for {
		if err := ctx.Err(); err != nil {
			return done, err
		}
		k, err := r.Read(buf)
		d.Write(buf[:k])
		done += int64(k)
		if k > 0 {
			f.emit(FetchEvent{Kind: EventChecking, File: name, Done: done, Total: total})
		}
		if err == io.EOF {
			return done, nil
		}
		if err != nil {
			return done, err
		}
	}
}

// download completes part (resuming what is there) and returns the digest of its whole
// content. Transfer failures are retried, resuming, up to cfg.Attempts requests; a full
// disk, a 4xx answer or a cancelled context end it at once.
func (f *fetcher) download(ctx context.Context, file RemoteFile, part string, res *FetchResult) (string, error) {
	out, err := os.OpenFile(part, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return "", err
	}
	defer out.Close()
	fi, err := out.Stat()
	if err != nil {
		return "", err
	}
	have := fi.Size()
	d := groth16.NewDigestWriter()
	restart := func() error { // d is shared with request: reset it in place
		have, *d = 0, *groth16.NewDigestWriter()
		return out.Truncate(0)
	}
	if file.Size > 0 && have > file.Size {
		if err := restart(); err != nil {
			return "", err
		}
	}
	if have > 0 {
		if n, err := f.hashPrefix(ctx, file.Name, part, have, d); err != nil {
			return "", fmt.Errorf("reading %s: %w", part, err)
		} else if n != have {
			return "", fmt.Errorf("reading %s: %d of %d bytes", part, n, have)
		}
	}
	res.ResumedFrom = have
	u := f.cfg.fileURL(file.CID)
	delay := f.cfg.RetryDelay
	var lastErr error
	for attempt := 1; attempt <= f.cfg.Attempts; attempt++ {
		if attempt > 1 {
			f.emit(FetchEvent{Kind: EventRetry, File: file.Name, Done: have, Total: file.Size, Err: lastErr})
			select {
			case <-ctx.Done():
				return "", ctx.Err()
			case <-time.After(delay):
			}
			delay *= 2
		}
		res.Requests++
		complete, err := f.request(ctx, file, u, out, &have, d, restart, res)
		switch {
		case err == nil && complete:
			if err := out.Sync(); err != nil {
				return "", diskError(f.cfg.Dir, err)
			}
			return d.Digest(), nil
		case err == nil:
			lastErr = &GatewayError{URL: u, Err: io.ErrUnexpectedEOF}
		case ctx.Err() != nil:
			return "", ctx.Err()
		case !retryable(err):
			return "", err
		default:
			lastErr = err
		}
	}
	return "", lastErr
}

// request makes one GET (from have on, with Range) and appends what it receives to out.
// It says whether the file is complete; an error is retryable when retryable says so.
func (f *fetcher) request(ctx context.Context, file RemoteFile, u string, out *os.File, have *int64, d *groth16.DigestWriter, restart func() error, res *FetchResult) (bool, error) {
	rctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	req, err := http.NewRequestWithContext(rctx, http.MethodGet, u, nil)
	if err != nil {
		return false, err
	}
	if *have > 0 {
		req.Header.Set("Range", "bytes="+strconv.FormatInt(*have, 10)+"-")
	}
	resp, err := f.client.Do(req)
	if err != nil {
		return false, &GatewayError{URL: u, Err: err}
	}
	defer resp.Body.Close()
	total := int64(0)
	switch resp.StatusCode {
	case http.StatusPartialContent:
		start, size, ok := parseContentRange(resp.Header.Get("Content-Range"))
		if !ok || start != *have {
			// Not the range asked for: start again from the beginning.
			if err := restart(); err != nil {
				return false, err
			}
			return false, &GatewayError{URL: u, Err: fmt.Errorf("answered Range bytes=%d- with Content-Range %q", *have, resp.Header.Get("Content-Range"))}
		}
		total = size
	case http.StatusOK:
		if *have > 0 {
			// The gateway ignored the Range: take the whole file from the start.
			if err := restart(); err != nil {
				return false, err
			}
		}
		if resp.ContentLength >= 0 {
			total = resp.ContentLength
		}
	case http.StatusRequestedRangeNotSatisfiable:
		// The partial file is not a prefix of this one: start again.
		if err := restart(); err != nil {
			return false, err
		}
		return false, &HTTPStatusError{URL: u, StatusCode: resp.StatusCode, Status: resp.Status}
	default:
		return false, &HTTPStatusError{URL: u, StatusCode: resp.StatusCode, Status: resp.Status}
	}
	if total == 0 {
		total = file.Size
	}
	f.emit(FetchEvent{Kind: EventStart, File: file.Name, Done: *have, Total: total})
	var stall *time.Timer
	if f.cfg.StallTimeout > 0 {
		stall = time.AfterFunc(f.cfg.StallTimeout, func() { cancel(errStalled) })
		defer stall.Stop()
	}
	buf := make([]byte, 1<<20)
	var reported int64
	for {
		n, rerr := resp.Body.Read(buf)
		if stall != nil {
			stall.Reset(f.cfg.StallTimeout)
		}
		if n > 0 {
			if _, err := out.Write(buf[:n]); err != nil {
				return false, diskError(f.cfg.Dir, err)
			}
			d.Write(buf[:n])
			*have += int64(n)
			res.Downloaded += int64(n)
			if *have-reported >= 4<<20 {
				reported = *have
				f.emit(FetchEvent{Kind: EventProgress, File: file.Name, Done: *have, Total: total})
			}
		}
		if rerr == io.EOF {
			f.emit(FetchEvent{Kind: EventProgress, File: file.Name, Done: *have, Total: total})
			return total <= 0 || *have >= total, nil
		}
		if rerr != nil {
			if cause := context.Cause(rctx); errors.Is(cause, errStalled) {
				rerr = errStalled
			}
			return false, &GatewayError{URL: u, Err: rerr}
		}
	}
}

// retryable says whether another request may succeed: a broken or refused connection,
// a stall, a 5xx, 408, 416 (after a restart) or 429 answer.
func retryable(err error) bool {
	var ge *GatewayError
	if errors.As(err, &ge) {
		return true
	}
	var he *HTTPStatusError
	if errors.As(err, &he) {
		c := he.StatusCode
		return c >= 500 || c == http.StatusRequestTimeout || c == http.StatusTooManyRequests || c == http.StatusRequestedRangeNotSatisfiable
	}
	return false
}

// diskError types a write failure of a full disk.
func diskError(dir string, err error) error {
	if errors.Is(err, syscall.ENOSPC) {
		return &DiskFullError{Dir: dir, Err: err}
	}
	return err
}

// parseContentRange reads "bytes START-END/SIZE" (SIZE may be "*": 0).
func parseContentRange(s string) (start, size int64, ok bool) {
	rest, found := strings.CutPrefix(s, "bytes ")
	if !found {
		return 0, 0, false
	}
	span, total, found := strings.Cut(rest, "/")
	first, _, found2 := strings.Cut(span, "-")
	if !found || !found2 {
		return 0, 0, false
	}
	start, err := strconv.ParseInt(first, 10, 64)
	if err != nil {
		return 0, 0, false
	}
	if total != "*" {
		if size, err = strconv.ParseInt(total, 10, 64); err != nil {
			return 0, 0, false
		}
	}
	return start, size, true
}

func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}

func byteCount(n int64) string {
	switch {
	case n >= 1e9:
		return fmt.Sprintf("%.2f GB", float64(n)/1e9)
	case n >= 1e6:
		return fmt.Sprintf("%.1f MB", float64(n)/1e6)
	default:
		return fmt.Sprintf("%d B", n)
	}
}
