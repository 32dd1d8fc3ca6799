package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/snarkpipe/snarkpipe/prover"
	"github.com/snarkpipe/snarkpipe/prover/groth16"
	"github.com/snarkpipe/snarkpipe/prover/pipeline"
	"github.com/snarkpipe/snarkpipe/prover/r1cs"
	"github.com/snarkpipe/snarkpipe/prover/srs"
)

// reportingParams is the daemon's parameter source with progress lines: generating dev
// parameters (minutes on first use, with a bar) or loading parameters (seconds to
// minutes) is the longest silence an operator meets otherwise.
type reportingParams struct {
	inner pipeline.ParamsSource
	// dev is the dev cache when inner generates dev parameters (nil: official files).
	dev *srs.DirCache
	// files is inner when it reads official files (nil: dev parameters).
	files *srs.Files

	mu    sync.Mutex
	steps map[prover.CircuitID]*stepProgress
}

// newReportingParams wraps the daemon's source: dev parameters from cache (generated on
// first use) when dev, else the official files (dev files under the official names
// accepted when allowDev).
func newReportingParams(dev, allowDev bool, devDir, paramDir string) *reportingParams {
	r := &reportingParams{steps: map[prover.CircuitID]*stepProgress{}}
	if !dev {
		r.files = &srs.Files{Dir: paramDir, Names: officialNames(), Options: groth16.ReadOptions{AllowDev: allowDev}, Progress: r.progress}
		r.inner = *r.files
		return r
	}
	r.dev = &srs.DirCache{Dir: devDir}
	r.inner = srs.Dev{Cache: *r.dev, Progress: r.progress}
	return r
}

// Params reports the step around the inner source's work.
func (r *reportingParams) Params(ctx context.Context, id prover.CircuitID, shape *r1cs.Shape) (*groth16.Params, error) {
	label := fmt.Sprintf("loading parameters of %s", id)
	if r.files != nil {
		path := filepath.Join(r.files.Dir, r.files.Names[id])
		if fi, err := os.Stat(path); err == nil {
			label = fmt.Sprintf("loading parameters of %s from %s (%s)", id, path, decimalBytes(fi.Size()))
		}
	}
	if r.dev != nil {
		if path, err := r.dev.Path(srs.DevParamsName(shape)); err == nil {
			if _, err := os.Stat(path); err != nil {
				label = fmt.Sprintf("generating dev parameters of %s (first use; kept in %s)", id, r.dev.Dir)
			}
		}
	}
	step := startStep(label)
	r.mu.Lock()
	r.steps[id] = step
	r.mu.Unlock()
	p, err := r.inner.Params(ctx, id, shape)
	r.mu.Lock()
	delete(r.steps, id)
	r.mu.Unlock()
	step.finish(err)
	return p, err
}

func (r *reportingParams) progress(id prover.CircuitID, done, total int64) {
	r.mu.Lock()
	step := r.steps[id]
	r.mu.Unlock()
	if step != nil {
		step.update(done, total)
	}
}

// reportRecording shows a circuit's recording (its first use) as a step.
func reportRecording(id prover.CircuitID) func(error) {
	return startStep(fmt.Sprintf("recording circuit %s (first use; kept for later starts)", id)).finish
}
