package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/snarkpipe/snarkpipe/prover/groth16"
	"github.com/snarkpipe/snarkpipe/prover/r1cs"
	"github.com/snarkpipe/snarkpipe/prover/srs"
)

// keyFlags say where a command finds its Groth16 keys: an official (or any bellperson)
// .params file, a .vk file (verify only), or dev parameters kept in a cache directory and
// generated on first use (prove only: see findVerifyingKeys). Dev parameters are for
// tests and demos: whoever generated them knows the toxic waste.
type keyFlags struct {
	params, vk, cache string
}

func (k keyFlags) cacheDir() string {
	if k.cache != "" {
		return k.cache
	}
	return defaultDevParamDir()
}

// defaultDevParamDir is the one dev-parameter cache of every command (prove, verify,
// demo, daemon --dev and --demo, worker --dev): a key made by one is found by the others.
func defaultDevParamDir() string {
	base, err := os.UserCacheDir()
	if err != nil {
		base = os.TempDir()
	}
	return filepath.Join(base, "snarkpipe", "dev-params")
}

// recordShape synthesizes the statement's blank circuit into a recorder, reporting the
// step on stderr (a 32 GiB circuit takes minutes).
func recordShape(st *statement) (*r1cs.Shape, error) {
	step := startStep(fmt.Sprintf("recording circuit %s", st.blank.ID()))
	rec := r1cs.NewRecorder(r1cs.Capacity{})
	if err := st.blank.Synthesize(rec); err != nil {
		err = fmt.Errorf("recording %s: %w", st.blank.ID(), err)
		step.finish(err)
		return nil, err
	}
	step.finish(nil)
	return rec.Finish(), nil
}

// loadParams records the circuit's shape and returns it with its parameters, checked
// against that shape. The caller closes the params.
func loadParams(w io.Writer, st *statement, k keyFlags) (*r1cs.Shape, *groth16.Params, error) {
	t := time.Now()
	shape, err := recordShape(st)
	if err != nil {
		return nil, nil, err
	}
	fmt.Fprintf(w, "  record      %8.3fs  %s: rows %d, inputs %d, aux %d\n",
		time.Since(t).Seconds(), st.blank.ID(), shape.NumConstraints, shape.NumInputs, shape.NumAux)
	t = time.Now()
	path, dev := k.params, false
	if path == "" {
		dev = true
		path, err = devParamsFile(srs.DirCache{Dir: k.cacheDir()}, string(st.blank.ID()), shape)
		if err != nil {
			return nil, nil, err
		}
	}
	step := startStep("loading parameters " + path)
	params, err := groth16.ReadParams(path, groth16.ReadOptions{AllowDev: dev})
	step.finish(err)
	if err != nil {
		return nil, nil, err
	}
	fmt.Fprintf(w, "  params      %8.3fs  %s\n", time.Since(t).Seconds(), path)
	return shape, params, nil
}

// devParamsFile returns the cache's dev parameters for shape, generating them first
// (with a progress bar) when they are missing.
func devParamsFile(cache srs.DirCache, name string, shape *r1cs.Shape) (string, error) {
	return cache.GetOrBuild(srs.DevParamsName(shape), func(tmp string) error {
		step := startStep(fmt.Sprintf("generating dev parameters of %s (first use; kept in %s)", name, cache.Dir))
		p, err := groth16.DevSetupProgress(shape, nil, step.update)
		if err == nil {
			err = p.WriteFile(tmp)
			p.Close()
		}
		step.finish(err)
		return err
	})
}
