// Package cpu implements backend.Backend with gnark-crypto on the host CPUs. It is the
// reference every other backend is tested against.
package cpu

import (
	"errors"
	"fmt"
	"runtime"
	"sync"

	"github.com/consensys/gnark-crypto/ecc"
	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr/fft"
	"github.com/snarkpipe/snarkpipe/prover/backend"
)

// Config sets the parallelism of the CPU backend.
type Config struct {
	// Tasks is the number of goroutines one MSM, NTT or batch addition may use.
	// ≤ 0 picks the defaults: one per CPU for NTTs and batch additions; for MSMs, which
	// the Groth16 prover runs five at a time, half the CPUs for G1 and twice the CPUs for
	// the slower G2 one (gnark's prover splits the cores the same way).
	Tasks int
}

// DefaultConfig uses every CPU.
func DefaultConfig() Config { return Config{} }

// Validate checks the configuration.
func (c Config) Validate() error {
	if c.Tasks > 1024 {
		return fmt.Errorf("cpu backend: Tasks %d exceeds gnark-crypto's limit of 1024", c.Tasks)
	}
	return nil
}

// Backend is the gnark-crypto implementation of backend.Backend.
type Backend struct {
	tasks      int // NTTs and batch additions
	msmTasks   int // G1 MSMs
	msmG2Tasks int

	mu      sync.Mutex
	domains map[uint64]*fft.Domain
}

var _ backend.Backend = (*Backend)(nil)

// New returns a CPU backend.
func New(cfg Config) (*Backend, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	b := &Backend{tasks: cfg.Tasks, msmTasks: cfg.Tasks, msmG2Tasks: cfg.Tasks, domains: make(map[uint64]*fft.Domain)}
	if cfg.Tasks <= 0 {
		n := runtime.NumCPU()
		b.tasks, b.msmTasks, b.msmG2Tasks = n, max(1, n/2), min(2*n, 1024)
	}
	return b, nil
}

func (b *Backend) Name() string { return "cpu" }

func (b *Backend) Close() error { return nil }

type g1Bases struct{ points []bls.G1Affine }

func (g *g1Bases) Len() int     { return len(g.points) }
func (g *g1Bases) Close() error { g.points = nil; return nil }

type g2Bases struct{ points []bls.G2Affine }

func (g *g2Bases) Len() int     { return len(g.points) }
func (g *g2Bases) Close() error { g.points = nil; return nil }

// LoadG1 keeps a reference to points; nothing is copied.
func (b *Backend) LoadG1(points []bls.G1Affine) (backend.G1Bases, error) {
	return &g1Bases{points: points}, nil
}

// LoadG2 keeps a reference to points; nothing is copied.
func (b *Backend) LoadG2(points []bls.G2Affine) (backend.G2Bases, error) {
	return &g2Bases{points: points}, nil
}

var _ backend.BasesReader = (*Backend)(nil)

// ReadG1 copies bases [offset, offset+len(dst)) into dst (backend.BasesReader).
func (b *Backend) ReadG1(bases backend.G1Bases, offset int, dst []bls.G1Affine) error {
	src, err := g1Slice(bases, offset, len(dst))
	if err != nil {
		return err
	}
	copy(dst, src)
	return nil
}

// ReadG2 copies bases [offset, offset+len(dst)) into dst (backend.BasesReader).
func (b *Backend) ReadG2(bases backend.G2Bases, offset int, dst []bls.G2Affine) error {
	src, err := g2Slice(bases, offset, len(dst))
	if err != nil {
		return err
	}
	copy(dst, src)
	return nil
}

var errForeignBases = errors.New("cpu backend: bases were not loaded by this backend")

func g1Slice(bases backend.G1Bases, offset, n int) ([]bls.G1Affine, error) {
	g, ok := bases.(*g1Bases)
	if !ok {
		return nil, errForeignBases
	}
	if g.points == nil {
		return nil, backend.ErrClosed
	}
	if offset < 0 || n < 0 || offset+n > len(g.points) {
		return nil, fmt.Errorf("cpu backend: range [%d, %d) outside %d G1 bases", offset, offset+n, len(g.points))
	}
	return g.points[offset : offset+n], nil
}

func g2Slice(bases backend.G2Bases, offset, n int) ([]bls.G2Affine, error) {
	g, ok := bases.(*g2Bases)
	if !ok {
		return nil, errForeignBases
	}
	if g.points == nil {
		return nil, backend.ErrClosed
	}
	if offset < 0 || n < 0 || offset+n > len(g.points) {
		return nil, fmt.Errorf("cpu backend: range [%d, %d) outside %d G2 bases", offset, offset+n, len(g.points))
	}
	return g.points[offset : offset+n], nil
}

// MSMG1 returns Σ scalars[i]·bases[offset+i].
func (b *Backend) MSMG1(bases backend.G1Bases, offset int, scalars []fr.Element) (bls.G1Jac, error) {
	var r bls.G1Jac
	pts, err := g1Slice(bases, offset, len(scalars))
	if err != nil || len(scalars) == 0 {
		return r, err
	}
	_, err = r.MultiExp(pts, scalars, ecc.MultiExpConfig{NbTasks: b.msmTasks})
	return r, err
}

// MSMG2 returns Σ scalars[i]·bases[offset+i].
func (b *Backend) MSMG2(bases backend.G2Bases, offset int, scalars []fr.Element) (bls.G2Jac, error) {
	var r bls.G2Jac
	pts, err := g2Slice(bases, offset, len(scalars))
	if err != nil || len(scalars) == 0 {
		return r, err
	}
	_, err = r.MultiExp(pts, scalars, ecc.MultiExpConfig{NbTasks: b.msmG2Tasks})
	return r, err
}
