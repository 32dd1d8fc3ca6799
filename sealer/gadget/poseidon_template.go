package gadget

import (
	"fmt"
	"strings"
	"sync"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/snarkpipe/snarkpipe/prover/r1cs"
)

// A Poseidon template is the circuit of one instance recorded once over symbolic slots, so
// that each hash afterwards only replays rows: no linear-combination arithmetic, no
// sorting. The R1CS never depends on the witness (spec §1), so one recording serves every
// preimage.
//
// Slots are r1cs.Variables in a private numbering: Input(0) is ONE, Input(1+i) is preimage
// element i, Aux(j) is the j-th variable the hash allocates.

// poseidonTemplateRow is one row. Every row of the gadget allocates exactly one variable
// just before it and defines it: C = 1·defined + cRest (so its value is A·B − cRest; the
// replay takes the values from the native trace instead, and tests check they agree).
type poseidonTemplateRow struct {
	a, b, cRest r1cs.LC
	defined     int // aux slot
	annotation  string
}

type poseidonTemplate struct {
	arity  int
	rows   []poseidonTemplateRow
	numAux int
	output int // aux slot of the digest
}

// poseidonTemplateCache builds a constants value's template once, on first use.
type poseidonTemplateCache struct {
	once sync.Once
	t    *poseidonTemplate
	err  error
}

// poseidonTemplateFor returns the template of c's instance, recorded at first use. Each
// constants value (a WithDomainTag copy included) caches its own.
func poseidonTemplateFor(c *PoseidonConstants) (*poseidonTemplate, error) {
	if c.template == nil {
		return nil, fmt.Errorf("gadget: Poseidon constants of arity %d not built by PoseidonFor", c.Arity)
	}
	c.template.once.Do(func() { c.template.t, c.template.err = buildPoseidonTemplate(c) })
	return c.template.t, c.template.err
}

// buildPoseidonTemplate runs the direct construction into a template recorder.
func buildPoseidonTemplate(c *PoseidonConstants) (*poseidonTemplate, error) {
	rec := &poseidonTemplateRecorder{tmpl: &poseidonTemplate{arity: c.Arity}}
	preimage := make([]AllocatedNum, c.Arity)
	for i := range preimage {
		preimage[i] = AllocatedNum{Var: r1cs.Input(1 + i)}
	}
	var p poseidonCircuit
	out := p.hash(rec, c, preimage)
	if rec.err != nil {
		return nil, rec.err
	}
	if !out.Var.IsAux() {
		return nil, fmt.Errorf("gadget: Poseidon template arity %d: digest is not an allocated variable", c.Arity)
	}
	rec.tmpl.output = out.Var.Index()
	return rec.tmpl, nil
}

// poseidonTemplateRecorder is the ConstraintSystem the direct construction runs against
// while recording. It checks the one-allocation-then-its-defining-row pattern the replay
// relies on.
type poseidonTemplateRecorder struct {
	tmpl    *poseidonTemplate
	path    []string
	pending int // aux allocated since the last row
	err     error
}

func (r *poseidonTemplateRecorder) Alloc(fr.Element) r1cs.Variable {
	r.pending++
	r.tmpl.numAux++
	return r1cs.Aux(r.tmpl.numAux - 1)
}

func (r *poseidonTemplateRecorder) AllocInput(fr.Element) r1cs.Variable {
	r.fail("allocates an input")
	return r1cs.One
}

func (r *poseidonTemplateRecorder) Push(ns string) { r.path = append(r.path, ns) }

func (r *poseidonTemplateRecorder) Pop() {
	if len(r.path) > 0 {
		r.path = r.path[:len(r.path)-1]
	}
}

func (r *poseidonTemplateRecorder) fail(what string) {
	if r.err == nil {
		r.err = fmt.Errorf("gadget: Poseidon template arity %d row %d %s", r.tmpl.arity, len(r.tmpl.rows), what)
	}
}

func (r *poseidonTemplateRecorder) Enforce(annotation string, a, b, c *r1cs.LC) {
	defined := r.tmpl.numAux - 1
	if r.pending != 1 {
		r.fail("does not follow exactly one allocation")
	}
	r.pending = 0
	row := poseidonTemplateRow{
		a:          canonicalCopy(a),
		b:          canonicalCopy(b),
		defined:    defined,
		annotation: strings.Join(append(r.path, annotation), "/"),
	}
	one := r1cs.CoeffOne()
	seen := false
	for _, t := range canonicalCopy(c) {
		if t.Var == r1cs.Aux(defined) {
			seen = t.Coeff.Equal(&one)
			continue
		}
		if t.Var.IsAux() && t.Var.Index() >= defined {
			r.fail("uses a variable not yet defined")
		}
		row.cRest = append(row.cRest, t)
	}
	if !seen {
		r.fail("does not define its allocation with coefficient 1 in C")
	}
	for _, side := range [...]r1cs.LC{row.a, row.b} {
		for _, t := range side {
			if t.Var.IsAux() && t.Var.Index() >= defined {
				r.fail("uses its own allocation in A or B")
			}
		}
	}
	r.tmpl.rows = append(r.tmpl.rows, row)
}

func canonicalCopy(lc *r1cs.LC) r1cs.LC {
	if lc == nil {
		return nil
	}
	out := append(r1cs.LC(nil), (*lc)...)
	out.Canonicalize()
	return out
}
