package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/snarkpipe/snarkpipe/prover/srs"
	"github.com/snarkpipe/snarkpipe/types"
)

// envIPFSGateway is upstream's override of the parameter gateway (go-paramfetch reads it
// when it is not empty); only cmd reads the environment.
const envIPFSGateway = "IPFS_GATEWAY"

var paramsFetchCmd = &cli.Command{
	Name:  "fetch",
	Usage: "download the official parameter files of a sector size or of proof types from an IPFS gateway (resumable, digests checked)",
	Description: "Fetches the .params and .vk of every circuit snarkpipe proves at --size (PoRep C2, Winning and Window PoSt,\n" +
		"SnapDeals), or of the --proof-types named, into the parameter directory, " + fmt.Sprint(srs.DefaultFetchConfig().Parallel) + " at a time.\n" +
		"Present files whose digest matches parameters.json are kept; a partial NAME.part is resumed; a download\n" +
		"with a wrong digest is fetched again once, then reported. Gateway: --gateway, else $" + envIPFSGateway + ", else\n" +
		srs.DefaultGateway + " (lotus's).",
	Flags: []cli.Flag{paramDirFlag,
		&cli.StringFlag{Name: "size", Usage: "sector size whose files to fetch: 2KiB, 8MiB, 512MiB, 32GiB or 64GiB (default 32GiB unless --proof-types is given)"},
		&cli.StringSliceFlag{Name: "proof-types", Usage: "only the files of these proof types: upstream names (StackedDrg32GiBV1_1, StackedDrgWindow32GiBV1_2, update:StackedDrg32GiBV1) or circuit ids (porep-32g, snap-32g); repeatable or comma-separated"},
		&cli.StringFlag{Name: "gateway", Usage: "IPFS gateway URL; a file is fetched from URL/CID (default: $" + envIPFSGateway + ", else " + srs.DefaultGateway + ")"},
		&cli.IntFlag{Name: "parallel", Value: srs.DefaultFetchConfig().Parallel, Usage: "files fetched at once"},
		&cli.BoolFlag{Name: "dry-run", Usage: "list the files and bytes that would be fetched, without network"},
	},
	Action: func(c *cli.Context) error {
		size := c.String("size")
		if size == "" && len(c.StringSlice("proof-types")) == 0 {
			size = "32GiB"
		}
		plan, err := fetchPlan(size, c.StringSlice("proof-types"))
		if err != nil {
			return err
		}
		cfg := srs.DefaultFetchConfig()
		cfg.Dir, cfg.Gateway, cfg.Parallel = paramDir(c), fetchGateway(c.String("gateway")), c.Int("parallel")
		if err := cfg.Validate(); err != nil {
			return err
		}
		if c.Bool("dry-run") {
			return printFetchPlan(c.App.Writer, cfg, plan)
		}
		return runFetch(c.Context, c.App.Writer, os.Stderr, stderrIsTerminal(), cfg, plan)
	},
}

// fetchGateway applies upstream's rule: the flag, else a non-empty $IPFS_GATEWAY, else
// lotus's gateway.
func fetchGateway(flag string) string {
	if flag != "" {
		return flag
	}
	if gw := os.Getenv(envIPFSGateway); gw != "" {
		return gw
	}
	return srs.DefaultGateway
}

// plannedFile is one file to fetch and the circuit that needs it.
type plannedFile struct {
	types.ParamFile
	circuit string
}

// fetchPlan lists the files that size's proof types (every one snarkpipe proves) and the
// named proof types need: each circuit's .params and .vk, and the SnarkPack .srs for an
// NI-PoRep type. Unlike lotus fetch-params it takes no verifying keys of other sizes:
// snarkpipe proves, it does not verify the chain. Small files come first.
func fetchPlan(size string, proofTypes []string) ([]plannedFile, error) {
	circuits := map[string]string{} // .params name → circuit id
	needSRS := false
	if size != "" {
		bytes, err := parseBenchSize(size)
		if err != nil {
			return nil, fmt.Errorf("params fetch: unknown --size %q: want 2KiB, 8MiB, 512MiB, 32GiB or 64GiB", size)
		}
		for _, p := range types.SealProofs() {
			if p.SectorSize == bytes && p.Provable {
				circuits[p.ParamFileName("params")] = p.CircuitID
			}
		}
		for _, p := range types.PoStProofs() {
			if p.SectorSize == bytes && p.Provable {
				circuits[p.ParamFileName("params")] = p.CircuitID
			}
		}
		for _, p := range types.UpdateProofs() {
			if p.SectorSize == bytes {
				circuits[p.ParamFileName("params")] = p.CircuitID
			}
		}
	}
	for _, list := range proofTypes {
		for _, name := range strings.Split(list, ",") {
			params, circuit, ni, err := resolveFetchProofType(strings.TrimSpace(name))
			if err != nil {
				return nil, err
			}
			circuits[params] = circuit
			needSRS = needSRS || ni
		}
	}
	var plan []plannedFile
	for params, circuit := range circuits {
		files, err := types.ParamFilesOf(params)
		if err != nil {
			return nil, err
		}
		for _, f := range files {
			plan = append(plan, plannedFile{f, circuit})
		}
	}
	if needSRS {
		f, err := types.ParamFileInfo(types.SRSFileName)
		if err != nil {
			return nil, err
		}
		plan = append(plan, plannedFile{f, "NI-PoRep aggregation (SnarkPack)"})
	}
	sort.Slice(plan, func(i, j int) bool {
		if plan[i].Size != plan[j].Size {
			return plan[i].Size < plan[j].Size
		}
		return plan[i].Name < plan[j].Name
	})
	return plan, nil
}

// resolveFetchProofType finds a proof type (upstream name, update:NAME, or circuit id)
// and returns its circuit's .params name, and whether it is NI-PoRep.
func resolveFetchProofType(name string) (params, circuit string, ni bool, err error) {
	if u, ok := strings.CutPrefix(name, updateNamePrefix); ok {
		for _, p := range types.UpdateProofs() {
			if strings.EqualFold(p.RustName, u) {
				return p.ParamFileName("params"), p.CircuitID, false, nil
			}
		}
	}
	for _, p := range types.SealProofs() {
		if strings.EqualFold(p.RustName, name) || strings.EqualFold(p.CircuitID, name) {
			return p.ParamFileName("params"), p.CircuitID, p.Mode == types.ChallengeNonInteractive && strings.EqualFold(p.RustName, name), nil
		}
	}
	for _, p := range types.PoStProofs() {
		if strings.EqualFold(p.RustName, name) || strings.EqualFold(p.CircuitID, name) {
			return p.ParamFileName("params"), p.CircuitID, false, nil
		}
	}
	for _, p := range types.UpdateProofs() {
		if strings.EqualFold(p.CircuitID, name) {
			return p.ParamFileName("params"), p.CircuitID, false, nil
		}
	}
	return "", "", false, fmt.Errorf("params fetch: unknown proof type %q: use an upstream name (StackedDrg32GiBV1_1, StackedDrgWinning32GiBV1, StackedDrgWindow32GiBV1_2, update:StackedDrg32GiBV1) or a circuit id (porep-32g, winning-32g, wpost-32g, snap-32g)", name)
}

// printFetchPlan lists the files, their sizes and what is on disk of them, without
// network.
func printFetchPlan(w io.Writer, cfg srs.FetchConfig, plan []plannedFile) error {
	fmt.Fprintf(w, "parameter directory %s\ngateway %s\n", cfg.Dir, cfg.Gateway)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "%12s\ton disk\tcircuit\tfile\n", "bytes")
	var total, toGet int64
	unknown, present := 0, 0
	for _, f := range plan {
		size := fmt.Sprint(f.Size)
		if f.Size == 0 {
			size, unknown = "unknown", unknown+1
		}
		state, missing := "missing", f.Size
		if fi, err := os.Stat(filepath.Join(cfg.Dir, f.Name)); err == nil {
			state, missing = "present", 0
			present++
			if f.Size > 0 && fi.Size() != f.Size {
				state, missing = fmt.Sprintf("present (%d B, expected %d)", fi.Size(), f.Size), f.Size
			}
		} else if fi, err := os.Stat(filepath.Join(cfg.Dir, f.Name+".part")); err == nil {
			state = fmt.Sprintf("partial, %d B", fi.Size())
			missing = max(0, f.Size-fi.Size())
		}
		total += f.Size
		toGet += missing
		fmt.Fprintf(tw, "%12s\t%s\t%s\t%s\n", size, state, f.circuit, f.Name)
	}
	tw.Flush()
	fmt.Fprintf(w, "%d files, %d bytes (%s)", len(plan), total, decimalBytes(total))
	if unknown > 0 {
		fmt.Fprintf(w, " plus %d of unknown size", unknown)
	}
	fmt.Fprintf(w, "; %d present (their digests are checked when fetching); at most %d bytes (%s) to download\n", present, toGet, decimalBytes(toGet))
	return nil
}

// runFetch fetches the plan, reporting on progress (a bar with rate and ETA on a
// terminal, plain lines otherwise) and summarising on w.
func runFetch(ctx context.Context, w, progress io.Writer, terminal bool, cfg srs.FetchConfig, plan []plannedFile) error {
	files := make([]srs.RemoteFile, len(plan))
	var total int64
	for i, f := range plan {
		files[i] = srs.RemoteFile{Name: f.Name, CID: f.CID, Digest: f.Digest, Size: f.Size}
		total += f.Size
	}
	fmt.Fprintf(w, "fetching %d files (%s) from %s into %s\n", len(files), decimalBytes(total), cfg.Gateway, cfg.Dir)
	r := &fetchReporter{files: map[string]*fileProgress{}, total: total}
	for _, f := range files {
		r.files[f.Name] = &fileProgress{size: f.Size}
	}
	r.step = newStepProgress(progress, terminal, fmt.Sprintf("parameter files (%d)", len(files)))
	start := time.Now()
	results, err := srs.Fetch(ctx, cfg, files, r.event)
	counts := map[srs.FetchState]int{}
	var downloaded int64
	for _, res := range results {
		counts[res.State]++
		downloaded += res.Downloaded
	}
	switch {
	case err != nil && len(results) > 0:
		r.step.finish(fmt.Errorf("%d of %d files failed", counts[srs.StateFailed], len(results)))
	default:
		r.step.finish(err)
	}
	fmt.Fprintf(w, "%d fetched, %d already present, %d failed; %s downloaded in %s\n", counts[srs.StateFetched], counts[srs.StatePresent],
		counts[srs.StateFailed], decimalBytes(downloaded), elapsed(time.Since(start)))
	if err == nil {
		return nil
	}
	if ctx.Err() != nil {
		return fmt.Errorf("interrupted; partial downloads are kept as NAME.part in %s and resumed by the next run", cfg.Dir)
	}
	var ge *srs.GatewayError
	if errors.As(err, &ge) {
		return fmt.Errorf("%w (the gateway is %s: choose another with --gateway URL or $%s)", err, cfg.Gateway, envIPFSGateway)
	}
	return err
}

// fetchReporter turns srs.Fetch's events into the step's bar and one line per notable
// event. Fetch calls it from several goroutines.
type fetchReporter struct {
	step *stepProgress

	mu    sync.Mutex
	files map[string]*fileProgress
	total int64
	moved int64
}

type fileProgress struct {
	size, done, last int64
	started          time.Time
}

func (r *fetchReporter) event(e srs.FetchEvent) {
	r.mu.Lock()
	f := r.files[e.File]
	var line string
	switch e.Kind {
	case srs.EventChecking:
		f.done = e.Done
	case srs.EventDamaged:
		f.done = 0
		line = fmt.Sprintf("%v: fetching it again", e.Err)
	case srs.EventWaiting:
		line = fmt.Sprintf("%s: another process is fetching it (%s.lock); waiting", e.File, e.File)
	case srs.EventStart:
		if f.started.IsZero() {
			f.started = time.Now()
		}
		f.done, f.last = e.Done, e.Done
		if e.Total > 0 && f.size == 0 {
			f.size = e.Total
			r.total += e.Total
		}
		if e.Done > 0 {
			line = fmt.Sprintf("%s: resuming at %s of %s", e.File, decimalBytes(e.Done), decimalBytes(e.Total))
		}
	case srs.EventProgress:
		r.moved += e.Done - f.last
		f.done, f.last = e.Done, e.Done
	case srs.EventRetry:
		line = fmt.Sprintf("%s: %v; retrying from %s", e.File, e.Err, decimalBytes(e.Done))
	case srs.EventRefetch:
		f.done = 0
		line = fmt.Sprintf("%v: fetching it again from scratch", e.Err)
	case srs.EventDone:
		switch res := e.Result; res.State {
		case srs.StatePresent:
			f.done = f.size
			line = fmt.Sprintf("ok %s (present, digest checked)", e.File)
		case srs.StateFetched:
			f.done = f.size
			line = fmt.Sprintf("fetched %s (%s in %s)", e.File, decimalBytes(res.Downloaded), elapsed(time.Since(f.started)))
		default:
			line = fmt.Sprintf("FAILED %v", res.Err)
		}
	}
	var done int64
	for _, p := range r.files {
		done += p.done
	}
	total, moved := r.total, r.moved
	r.mu.Unlock()
	if line != "" {
		r.step.println("  " + line)
	}
	r.step.updateBytes(done, total, moved)
}
