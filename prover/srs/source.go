package srs

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/snarkpipe/snarkpipe/prover"
	"github.com/snarkpipe/snarkpipe/prover/groth16"
	"github.com/snarkpipe/snarkpipe/prover/r1cs"
)

// Files locates official parameter files: Names maps a circuit id to its file name in Dir
// (the Filecoin mapping belongs to the caller). Every read checks the file's shape against
// the recorded R1CS before it is used.
type Files struct {
	Dir     string
	Names   map[prover.CircuitID]string
	Options groth16.ReadOptions
}

// Params reads the parameter file of id and checks it against shape.
func (f Files) Params(ctx context.Context, id prover.CircuitID, shape *r1cs.Shape) (*groth16.Params, error) {
	name, ok := f.Names[id]
	if !ok {
		return nil, fmt.Errorf("srs: no parameter file configured for circuit %q", id)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return readChecked(filepath.Join(f.Dir, name), f.Options, shape)
}

// Dev generates dev parameters (random toxic waste: for tests and benchmarks only) once per
// recorded shape, caching them in Cache.
type Dev struct {
	Cache DirCache
	// Progress, when set, follows a generation (not a read from the cache): it is called
	// with done of total work units while the setup runs (groth16.SetupProgress).
	Progress func(id prover.CircuitID, done, total int64)
}

// Params returns dev parameters for shape, generating and caching them on first use.
func (d Dev) Params(ctx context.Context, id prover.CircuitID, shape *r1cs.Shape) (*groth16.Params, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var progress groth16.SetupProgress
	if d.Progress != nil {
		progress = func(done, total int64) { d.Progress(id, done, total) }
	}
	path, err := d.Cache.GetOrBuild(DevParamsName(shape), func(tmp string) error {
		p, err := groth16.DevSetupProgress(shape, nil, progress)
		if err != nil {
			return err
		}
		defer p.Close()
		return p.WriteFile(tmp)
	})
	if err != nil {
		return nil, err
	}
	return readChecked(path, groth16.ReadOptions{AllowDev: true}, shape)
}

func readChecked(path string, opts groth16.ReadOptions, shape *r1cs.Shape) (*groth16.Params, error) {
	p, err := groth16.ReadParams(path, opts)
	if err != nil {
		return nil, err
	}
	c := shape.Counts()
	if err := p.CheckShape(groth16.ShapeCounts{
		Inputs: c.NumInputs, Aux: c.NumAux, DomainSize: c.DomainSize(),
		AAux: c.AAux, BInput: c.BInput, BAux: c.BAux,
	}); err != nil {
		p.Close()
		return nil, fmt.Errorf("srs: %s: %w", path, err)
	}
	return p, nil
}

// ParamsBytes is the host memory a parameter set for counts occupies once decoded
// (gnark-crypto affine points: 96 bytes in G1, 192 in G2). The pipeline reserves it
// before loading.
func ParamsBytes(c r1cs.Counts) int64 {
	const g1, g2 = 96, 192
	b := c.BInput + c.BAux
	g1Points := int64(c.NumInputs) /* ic */ + int64(c.DomainSize()-1) + int64(c.NumAux) + int64(c.NumInputs+c.AAux) + int64(b)
	return g1Points*g1 + int64(b)*g2 + 1024 // + the fixed verifying-key points
}
