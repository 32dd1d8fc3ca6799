package porep

import (
	"errors"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/snarkpipe/snarkpipe/prover/r1cs"
	"github.com/snarkpipe/snarkpipe/types"
)

// TestOneCircuitPerSize: V1, V1_1, synthetic and NI seal proofs of a size configure the
// same circuit (spec §2.1): same id, nodes, layers, challenges per partition and tree.
func TestOneCircuitPerSize(t *testing.T) {
	bySize := map[uint64]Config{}
	for _, p := range types.SealProofs() {
		cfg := ConfigFor(&p)
		if err := cfg.Validate(); err != nil {
			t.Fatalf("%s: %v", p.RustName, err)
		}
		if prev, ok := bySize[p.SectorSize]; ok && prev != cfg {
			t.Errorf("%s configures %+v, another proof of its size %+v", p.RustName, cfg, prev)
		}
		bySize[p.SectorSize] = cfg
	}
	if len(bySize) != 5 {
		t.Errorf("%d sector sizes", len(bySize))
	}
}

// TestConfigRejects: configurations upstream cannot build are errors, also from Blank.
func TestConfigRejects(t *testing.T) {
	good := stackedTestConfig(8, 0, 0)
	for name, mutate := range map[string]func(*Config){
		"nodes not a power of two": func(c *Config) { c.Nodes = 24 },
		"3 layers":                 func(c *Config) { c.Layers = 3 },
		"no challenges":            func(c *Config) { c.Challenges = 0 },
		"19 challenges":            func(c *Config) { c.Challenges = 19 },
		"arity 3":                  func(c *Config) { c.Tree.Base = 3 },
		"top without sub":          func(c *Config) { c.Tree.Top = 2 },
		"nodes do not fill tree":   func(c *Config) { c.Nodes = 16 },
	} {
		cfg := good
		mutate(&cfg)
		if err := cfg.Validate(); !errors.Is(err, ErrConfig) {
			t.Errorf("%s: Validate = %v", name, err)
		}
		if _, err := Blank(cfg); err == nil {
			t.Errorf("%s: Blank accepted", name)
		}
	}
}

// TestCheckRejectsWrongShape: a circuit whose values do not have its configuration's
// shape fails before synthesis, with no row emitted.
func TestCheckRejectsWrongShape(t *testing.T) {
	for name, mutate := range map[string]func(*Circuit){
		"missing challenge": func(c *Circuit) { c.Challenges = c.Challenges[:0] },
		"short column":      func(c *Circuit) { c.Challenges[0].DrgParents[3].Rows = c.Challenges[0].DrgParents[3].Rows[:1] },
		"short tree D path": func(c *Circuit) { c.Challenges[0].CommDPath.Siblings = c.Challenges[0].CommDPath.Siblings[1:] },
		"long tree C path":  func(c *Circuit) { c.Challenges[0].CommCPath.Siblings = append(c.Challenges[0].CommCPath.Siblings, nil) },
		"node out of range": func(c *Circuit) { c.Challenges[0].Node = c.Nodes },
	} {
		c, err := Blank(stackedTestConfig(8, 0, 0))
		if err != nil {
			t.Fatal(err)
		}
		mutate(c)
		cs := countingOnly{}
		if err := c.Synthesize(&cs); err == nil {
			t.Errorf("%s: synthesized", name)
		} else if cs.rows != 0 {
			t.Errorf("%s: %d rows emitted before the error", name, cs.rows)
		}
	}
}

// countingOnly counts rows and allocations, nothing else.
type countingOnly struct{ rows, vars int }

func (c *countingOnly) Alloc(fr.Element) r1cs.Variable               { c.vars++; return r1cs.Aux(c.vars) }
func (c *countingOnly) AllocInput(fr.Element) r1cs.Variable          { c.vars++; return r1cs.Input(c.vars) }
func (c *countingOnly) Enforce(string, *r1cs.LC, *r1cs.LC, *r1cs.LC) { c.rows++ }
func (c *countingOnly) Push(string)                                  {}
func (c *countingOnly) Pop()                                         {}
