package gadget

import (
	"errors"
	"fmt"
	"sync"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/snarkpipe/snarkpipe/prover/r1cs"
)

// The Poseidon circuit: neptune v11's legacy poseidon_hash, which rust-fil-proofs always
// calls (spec circuits.md §5.3). Rows, sides, coefficients and aux order are upstream's;
// the construction itself is in poseidon_circuit_build.go and runs once per arity, and
// each call here replays its recorded rows (poseidon_template.go).
//
// Cost: 3·(t·RF + RP − 1) + (t·RF + RP − arity) rows, aux = rows
// (311 / 377 / 505 / 598 / 761 / 1009 / 1385 for arities 2 … 36).

// ErrPoseidonConstants reports a nil constants argument.
var ErrPoseidonConstants = errors.New("gadget: nil Poseidon constants")

// PoseidonHashCircuit synthesizes the Poseidon hash of preimage (exactly c.Arity
// allocated numbers) and returns the allocated digest.
func PoseidonHashCircuit(cs r1cs.ConstraintSystem, c *PoseidonConstants, preimage []AllocatedNum) (AllocatedNum, error) {
	if c == nil {
		return AllocatedNum{}, ErrPoseidonConstants
	}
	if len(preimage) != c.Arity {
		return AllocatedNum{}, fmt.Errorf("%w: got %d elements, arity %d", ErrPoseidonPreimage, len(preimage), c.Arity)
	}
	tmpl, err := poseidonTemplateFor(c)
	if err != nil {
		return AllocatedNum{}, err
	}
	r := poseidonReplayPool.Get().(*poseidonReplay)
	defer poseidonReplayPool.Put(r)
	return r.run(cs, c, tmpl, preimage)
}

// HashMDCircuit is rust-fil-proofs' hash_md_circuit: the Merkle–Damgård chain of HashMD
// over arity-36 hashes. A short last chunk is padded with freshly allocated zero aux
// variables that no row constrains, allocated just before that chunk's hash, as upstream
// does. elements needs ≥ 2 entries.
func HashMDCircuit(cs r1cs.ConstraintSystem, elements []AllocatedNum) (AllocatedNum, error) {
	if len(elements) < 2 {
		return AllocatedNum{}, fmt.Errorf("%w: hash_md needs at least 2 elements, got %d", ErrPoseidonPreimage, len(elements))
	}
	c, err := PoseidonFor(36)
	if err != nil {
		return AllocatedNum{}, err
	}
	acc := elements[0]
	preimage := make([]AllocatedNum, c.Arity)
	for rest := elements[1:]; len(rest) > 0; {
		n := min(len(rest), c.Arity-1)
		preimage[0] = acc
		copy(preimage[1:], rest[:n])
		for i := n + 1; i < c.Arity; i++ {
			preimage[i] = AllocNum(cs, fr.Element{})
		}
		cs.Push("hash md")
		acc, err = PoseidonHashCircuit(cs, c, preimage)
		cs.Pop()
		if err != nil {
			return AllocatedNum{}, err
		}
		rest = rest[n:]
	}
	return acc, nil
}

// poseidonReplay holds the per-hash buffers: the real variable and value of every aux
// slot, and the three row sides handed to Enforce.
type poseidonReplay struct {
	vars     []r1cs.Variable
	vals     []fr.Element
	preimage []AllocatedNum
	in       []fr.Element
	a, b, c  r1cs.LC
}

var poseidonReplayPool = sync.Pool{New: func() any { return new(poseidonReplay) }}

// run replays t for preimage: the values come from the native trace (WitnessAux), the
// rows from the template with slots mapped to real variables. A values-only system gets
// the allocations alone: mapping the rows' sides was a third of a 32 GiB Window PoSt
// witness fill (pprof, sealer/post).
func (r *poseidonReplay) run(cs r1cs.ConstraintSystem, c *PoseidonConstants, t *poseidonTemplate, preimage []AllocatedNum) (AllocatedNum, error) {
	if cap(r.vars) < t.numAux {
		r.vars = make([]r1cs.Variable, t.numAux)
		r.vals = make([]fr.Element, t.numAux)
	}
	r.vars, r.vals, r.preimage = r.vars[:t.numAux], r.vals[:t.numAux], preimage
	defer func() { r.preimage = nil }()

	digest, err := c.WitnessAux(r.vals, r.values(preimage))
	if err != nil {
		return AllocatedNum{}, err
	}
	rows := wantsRows(cs)
	for i := range t.rows {
		row := &t.rows[i]
		r.vars[row.defined] = cs.Alloc(r.vals[row.defined])
		if !rows {
			continue
		}
		r.a = r.mapLC(r.a[:0], row.a)
		r.b = r.mapLC(r.b[:0], row.b)
		r.c = r.mapLC(r.c[:0], row.cRest)
		r.c.Add(r.vars[row.defined])
		cs.Enforce(row.annotation, &r.a, &r.b, &r.c)
	}
	return AllocatedNum{Var: r.vars[t.output], Value: digest}, nil
}

// values gathers the preimage values into a reused buffer.
func (r *poseidonReplay) values(preimage []AllocatedNum) []fr.Element {
	r.in = r.in[:0]
	for i := range preimage {
		r.in = append(r.in, preimage[i].Value)
	}
	return r.in
}

// slot returns the real variable behind a template slot.
func (r *poseidonReplay) slot(v r1cs.Variable) r1cs.Variable {
	switch {
	case v.IsAux():
		return r.vars[v.Index()]
	case v == r1cs.One:
		return r1cs.One
	default:
		return r.preimage[v.Index()-1].Var
	}
}

// mapLC appends the template side lc, with slots replaced by real variables, to dst.
func (r *poseidonReplay) mapLC(dst, lc r1cs.LC) r1cs.LC {
	for i := range lc {
		dst = append(dst, r1cs.Term{Var: r.slot(lc[i].Var), Coeff: lc[i].Coeff})
	}
	return dst
}
