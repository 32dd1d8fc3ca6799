package gadget

import (
	"math/rand/v2"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/snarkpipe/snarkpipe/prover/r1cs"
)

// A second, deliberately naive construction of the §5.3 circuit (spec §11.9 "two
// constructions"): linear combinations are maps, every mixing step (sparse ones included,
// expanded to dense matrices) is a full matrix product, and the round schedule is one loop
// over r. Its recorded shape must equal the optimized gadget's, digest for digest.

type naiveElt struct {
	allocated bool
	v         r1cs.Variable
	lc        map[r1cs.Variable]fr.Element
	val       fr.Element
}

func (e naiveElt) terms() map[r1cs.Variable]fr.Element {
	if e.allocated {
		return map[r1cs.Variable]fr.Element{e.v: r1cs.CoeffOne()}
	}
	return e.lc
}

func naiveLC(m map[r1cs.Variable]fr.Element) *r1cs.LC {
	var lc r1cs.LC
	for v, k := range m {
		lc.AddTerm(v, &k)
	}
	lc.Canonicalize()
	return &lc
}

func naiveOne() map[r1cs.Variable]fr.Element {
	return map[r1cs.Variable]fr.Element{r1cs.One: r1cs.CoeffOne()}
}

// naiveRow enforces a·b = c given as maps.
func naiveRow(cs r1cs.ConstraintSystem, a, b, c map[r1cs.Variable]fr.Element) {
	cs.Enforce("naive", naiveLC(a), naiveLC(b), naiveLC(c))
}

func naiveSbox(cs r1cs.ConstraintSystem, e naiveElt, pre, post *fr.Element) naiveElt {
	if !e.allocated {
		v := cs.Alloc(e.val)
		naiveRow(cs, e.lc, naiveOne(), map[r1cs.Variable]fr.Element{v: r1cs.CoeffOne()})
		e = naiveElt{allocated: true, v: v, val: e.val}
	}
	x := map[r1cs.Variable]fr.Element{e.v: r1cs.CoeffOne()}
	xv := e.val
	if pre != nil {
		x[r1cs.One] = *pre
		xv.Add(&xv, pre)
	}
	var v2, v4, v5 fr.Element
	v2.Square(&xv)
	l2 := cs.Alloc(v2)
	naiveRow(cs, x, x, map[r1cs.Variable]fr.Element{l2: r1cs.CoeffOne()})
	v4.Square(&v2)
	l4 := cs.Alloc(v4)
	naiveRow(cs, map[r1cs.Variable]fr.Element{l2: r1cs.CoeffOne()}, map[r1cs.Variable]fr.Element{l2: r1cs.CoeffOne()},
		map[r1cs.Variable]fr.Element{l4: r1cs.CoeffOne()})
	v5.Mul(&xv, &v4)
	c := map[r1cs.Variable]fr.Element{}
	if post != nil {
		v5.Add(&v5, post)
		var n fr.Element
		n.Neg(post)
		c[r1cs.One] = n
	}
	l5 := cs.Alloc(v5)
	c[l5] = r1cs.CoeffOne()
	naiveRow(cs, x, map[r1cs.Variable]fr.Element{l4: r1cs.CoeffOne()}, c)
	return naiveElt{allocated: true, v: l5, val: v5}
}

// naiveMix returns state·m (row vector), as Num arithmetic.
func naiveMix(state []naiveElt, m frMatrix) []naiveElt {
	out := make([]naiveElt, len(state))
	for j := range out {
		acc := map[r1cs.Variable]fr.Element{}
		var val, tmp fr.Element
		for i := range state {
			for v, k := range state[i].terms() {
				tmp.Mul(&k, &m[i][j])
				s := acc[v]
				s.Add(&s, &tmp)
				acc[v] = s
			}
			tmp.Mul(&state[i].val, &m[i][j])
			val.Add(&val, &tmp)
		}
		out[j] = naiveElt{lc: acc, val: val}
	}
	return out
}

func naivePoseidonCircuit(cs r1cs.ConstraintSystem, c *PoseidonConstants, preimage []AllocatedNum) AllocatedNum {
	t, half, rounds := c.Width, c.FullRounds/2, c.FullRounds+c.PartialRounds
	pre := newFrMatrix(t)
	for i := range t {
		copy(pre[i], c.preSparse[i*t:(i+1)*t])
	}
	state := make([]naiveElt, t)
	var tag fr.Element
	tag.Add(&c.DomainTag, &c.Compressed[0])
	quintic(&tag)
	tag.Add(&tag, &c.Compressed[t])
	state[0] = naiveElt{lc: map[r1cs.Variable]fr.Element{r1cs.One: tag}, val: tag}
	for i := 1; i < t; i++ {
		state[i] = naiveSbox(cs, naiveElt{allocated: true, v: preimage[i-1].Var, val: preimage[i-1].Value},
			&c.Compressed[i], &c.Compressed[t+i])
	}
	next := 2 * t // next unused compressed constant
	for r := 0; r < rounds; r++ {
		if r > 0 {
			partial := r >= half && r < half+c.PartialRounds
			for i := range t {
				if partial && i > 0 {
					continue
				}
				var key *fr.Element
				if r < rounds-1 {
					key = &c.Compressed[next]
					next++
				}
				state[i] = naiveSbox(cs, state[i], nil, key)
			}
		}
		switch {
		case r == half-1:
			state = naiveMix(state, pre)
		case r >= half && r < half+c.PartialRounds:
			state = naiveMix(state, c.sparse[r-half].toDense())
		default:
			state = naiveMix(state, c.mds)
		}
	}
	v := cs.Alloc(state[1].val)
	naiveRow(cs, state[1].lc, naiveOne(), map[r1cs.Variable]fr.Element{v: r1cs.CoeffOne()})
	return AllocatedNum{Var: v, Value: state[1].val}
}

// TestPoseidonCircuitTwoConstructions records both constructions and compares the shape
// digests (rows, sides, coefficients, allocation order) and the digests they compute.
func TestPoseidonCircuitTwoConstructions(t *testing.T) {
	arities := PoseidonArities[:]
	if testing.Short() {
		arities = []int{2, 8, 11} // the naive maps are slow for the wide instances
	}
	rng := rand.New(rand.NewPCG(41, 42))
	for _, arity := range arities {
		c := poseidonForTest(t, arity)
		in := poseidonRandom(rng, arity)

		recOpt := r1cs.NewRecorder(r1cs.Capacity{})
		if _, err := PoseidonHashCircuit(recOpt, c, poseidonAllocPreimage(recOpt, in)); err != nil {
			t.Fatal(err)
		}
		recNaive := r1cs.NewRecorder(r1cs.Capacity{})
		naivePoseidonCircuit(recNaive, c, poseidonAllocPreimage(recNaive, in))
		opt, naive := recOpt.Finish(), recNaive.Finish()
		if opt.Digest != naive.Digest {
			t.Errorf("arity %d: optimized shape %x != naive shape %x", arity, opt.Digest, naive.Digest)
		}

		chk := r1cs.NewChecker()
		out := naivePoseidonCircuit(chk, c, poseidonAllocPreimage(chk, in))
		var want fr.Element
		if err := c.Hash(&want, in); err != nil {
			t.Fatal(err)
		}
		if err := chk.Err(); err != nil || !out.Value.Equal(&want) {
			t.Errorf("arity %d: naive construction err %v, digest equal %v", arity, err, out.Value.Equal(&want))
		}
	}
}
