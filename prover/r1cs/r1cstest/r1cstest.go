// Package r1cstest provides small, fully satisfiable circuits for testing constraint
// systems and provers: a seeded random circuit and the squaring chain used as the gnark
// benchmark anchor.
package r1cstest

import (
	"fmt"
	"math/rand/v2"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/snarkpipe/snarkpipe/prover"
	"github.com/snarkpipe/snarkpipe/prover/r1cs"
)

// Random is a seeded random satisfiable circuit. Every row is a·b = c where a and b are
// random combinations of earlier variables (repeated and cancelling terms, constants and
// empty sides included) and c holds a fresh aux variable carrying the product. Some aux
// variables appear only in C (unconstrained in A and B), so density filtering is exercised.
type Random struct {
	Seed        uint64
	Constraints int
	Inputs      int // public inputs besides ONE, allocated at random points
	// Unused makes the circuit allocate this many aux variables that never appear in a
	// row with a non-zero coefficient besides the one row binding them.
	Unused int
}

func (c *Random) ID() prover.CircuitID {
	return prover.CircuitID(fmt.Sprintf("test-random-%d-%d-%d-%d", c.Seed, c.Constraints, c.Inputs, c.Unused))
}

// Synthesize writes the circuit. The shape depends only on the seed and sizes; the values
// also depend on the seed, so two calls produce identical witnesses.
func (c *Random) Synthesize(cs r1cs.ConstraintSystem) error {
	rng := rand.New(rand.NewPCG(c.Seed, 0x5eed))
	g := &generator{cs: cs, rng: rng}
	g.vars = append(g.vars, r1cs.One)
	g.vals = append(g.vals, r1cs.CoeffOne())
	g.alloc(randElement(rng))
	inputsLeft := c.Inputs
	for row := 0; row < c.Constraints; row++ {
		if inputsLeft > 0 && rng.IntN(c.Constraints-row) < inputsLeft {
			g.allocInput(randElement(rng))
			inputsLeft--
		}
		g.row(row < c.Unused)
	}
	for ; inputsLeft > 0; inputsLeft-- {
		g.allocInput(randElement(rng))
	}
	return nil
}

type generator struct {
	cs      r1cs.ConstraintSystem
	rng     *rand.Rand
	vars    []r1cs.Variable
	vals    []fr.Element
	a, b, c r1cs.LC
}

func (g *generator) alloc(v fr.Element) {
	g.vars = append(g.vars, g.cs.Alloc(v))
	g.vals = append(g.vals, v)
}

func (g *generator) allocInput(v fr.Element) {
	g.vars = append(g.vars, g.cs.AllocInput(v))
	g.vals = append(g.vals, v)
}

// row enforces a·b = out. When cOnly, out only ever appears in C: it is bound by this
// row and never used again.
func (g *generator) row(cOnly bool) {
	av := g.randomLC(&g.a)
	bv := g.randomLC(&g.b)
	var prod fr.Element
	prod.Mul(&av, &bv)
	g.c.Reset()
	out := g.cs.Alloc(prod)
	g.c.Add(out)
	if !cOnly {
		g.vars = append(g.vars, out)
		g.vals = append(g.vals, prod)
	}
	g.cs.Enforce("random row", &g.a, &g.b, &g.c)
}

// randomLC fills lc with up to 4 terms over earlier variables and returns its value.
func (g *generator) randomLC(lc *r1cs.LC) fr.Element {
	lc.Reset()
	var sum, t fr.Element
	n := g.rng.IntN(5)
	for i := 0; i < n; i++ {
		k := g.rng.IntN(len(g.vars))
		var coeff fr.Element
		switch g.rng.IntN(4) {
		case 0:
			coeff.SetOne()
		case 1:
			coeff.SetOne()
			coeff.Neg(&coeff)
		default:
			coeff = randElement(g.rng)
		}
		lc.AddTerm(g.vars[k], &coeff)
		t.Mul(&coeff, &g.vals[k])
		sum.Add(&sum, &t)
		if g.rng.IntN(8) == 0 { // a cancelling pair: present while building, absent after merging
			lc.AddTerm(g.vars[k], &coeff)
			lc.SubTerm(g.vars[k], &coeff)
		}
	}
	return sum
}

func randElement(rng *rand.Rand) fr.Element {
	var e fr.Element
	e.SetUint64(rng.Uint64())
	var hi fr.Element
	hi.SetUint64(rng.Uint64())
	e.Mul(&e, &hi)
	e.Add(&e, &hi)
	return e
}

// Chain is y_{i+1} = y_i · y_i for N rows with the final y as the one public input:
// the circuit of the gnark benchmark anchor (both domains 2^20 at N = 1,000,000 in gnark's
// accounting).
type Chain struct {
	N int
	// Y0 is the starting value (default 3).
	Y0 uint64
}

func (c *Chain) ID() prover.CircuitID { return prover.CircuitID(fmt.Sprintf("test-chain-%d", c.N)) }

func (c *Chain) Synthesize(cs r1cs.ConstraintSystem) error {
	var y fr.Element
	y.SetUint64(max(c.Y0, 3))
	cur := cs.Alloc(y)
	var a, b, o r1cs.LC
	for i := 0; i < c.N; i++ {
		var next fr.Element
		next.Square(&y)
		nv := cs.Alloc(next)
		a.Reset()
		a.Add(cur)
		b.Reset()
		b.Add(cur)
		o.Reset()
		o.Add(nv)
		cs.Enforce("square", &a, &b, &o)
		cur, y = nv, next
	}
	out := cs.AllocInput(y)
	a.Reset()
	a.Add(cur)
	b.Reset()
	b.Add(r1cs.One)
	o.Reset()
	o.Add(out)
	cs.Enforce("output", &a, &b, &o)
	return nil
}
