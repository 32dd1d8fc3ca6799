package srs

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/snarkpipe/snarkpipe/prover"
	"github.com/snarkpipe/snarkpipe/prover/groth16"
	"github.com/snarkpipe/snarkpipe/prover/r1cs"
)

// Files locates official parameter files: Names maps a circuit id to its .params file
// name in Dir (the Filecoin mapping belongs to the caller); the .vk of the same name must
// be beside it.
//
// What a load checks, every time (Params):
//   - the .vk (every point subgroup checked) equals the verifying key at the start of the
//     .params, before anything heavy: a foreign or stale .vk is a *VKMismatchError;
//   - every length field against the file's size before anything is allocated: a
//     truncated file is a *groth16.FormatError wrapping groth16.ErrTruncated;
//   - every proving-key point: canonical coordinates, on the curve, not the identity (what
//     bellperson's mapped prover checks), decoded in parallel from the mapped file. A
//     flipped byte changes one coordinate, and a point whose coordinate changed is on the
//     curve with negligible probability, so it is a *groth16.FormatError naming the
//     vector, index and byte offset;
//   - a dev file (ReadOptions.AllowDev) also has its trailer's SHA-256 of the whole file
//     checked, and any other file with a dev trailer is refused (groth16.ErrDevParams);
//   - the vector lengths against the recorded circuit (groth16.ErrShape).
//
// Not at every load: the BLAKE2b digest against parameters.json and the subgroup
// membership of the proving-key points, which cost minutes at 32 GiB. `params fetch`
// checks the digest of what it downloads and `params check` checks both. That is safe:
// the digest ties the file to the ceremony's output, after which only a change to the
// file could break it, and a change that is corruption fails the on-curve check above. A
// proving key that still produced wrong proofs could not make the service return one:
// every proof is verified against the .vk (itself fully checked at every load and equal
// to the .params' own) before it leaves.
//
// Every failure is a *LoadError naming the file.
type Files struct {
	Dir     string
	Names   map[prover.CircuitID]string
	Options groth16.ReadOptions
	// Progress, when set, follows a load: the proving-key points decoded of the total.
	Progress func(id prover.CircuitID, done, total int64)
}

// Params reads the parameter file of id, after checking its .vk against it, and checks it
// against shape.
func (f Files) Params(ctx context.Context, id prover.CircuitID, shape *r1cs.Shape) (*groth16.Params, error) {
	name, ok := f.Names[id]
	if !ok {
		return nil, fmt.Errorf("srs: no parameter file configured for circuit %q", id)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	path := filepath.Join(f.Dir, name)
	if err := checkVKPair(path, VKPath(path)); err != nil {
		return nil, &LoadError{Path: path, Err: err}
	}
	opts := f.Options
	if f.Progress != nil {
		opts.Progress = func(done, total int64) { f.Progress(id, done, total) }
	}
	return readChecked(path, opts, shape)
}

// VKPath is the path of the .vk file that goes with the .params file at paramsPath.
func VKPath(paramsPath string) string {
	return strings.TrimSuffix(paramsPath, ".params") + ".vk"
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

// readChecked reads the parameters at path and checks them against shape; a failure is a
// *LoadError.
func readChecked(path string, opts groth16.ReadOptions, shape *r1cs.Shape) (*groth16.Params, error) {
	p, err := groth16.ReadParams(path, opts)
	if err != nil {
		return nil, &LoadError{Path: path, Err: err}
	}
	c := shape.Counts()
	if err := p.CheckShape(groth16.ShapeCounts{
		Inputs: c.NumInputs, Aux: c.NumAux, DomainSize: c.DomainSize(),
		AAux: c.AAux, BInput: c.BInput, BAux: c.BAux,
	}); err != nil {
		p.Close()
		return nil, &LoadError{Path: path, Err: fmt.Errorf("%s: %w", path, err)}
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
