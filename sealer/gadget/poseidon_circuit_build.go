package gadget

import (
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/snarkpipe/snarkpipe/prover/r1cs"
)

// The direct construction of neptune v11's legacy poseidon_hash (src/circuit.rs), written
// step by step from spec §5.3. It runs once per arity, into a poseidonTemplateRecorder;
// PoseidonHashCircuit then replays the recorded rows for every hash (poseidon_circuit.go).
//
//   - element 0 starts as the constant tag·ONE and its first S-box is folded into a
//     constant; elements 1..arity are the given AllocatedNums, never re-allocated;
//   - an S-box on an element that is still a linear combination first allocates it
//     (ensure_allocated: aux v, row lc | ONE | v), then emits l², l⁴, l⁵ (3 aux, 3 rows);
//   - mixing builds linear combinations only (Num addition and scaling); no rows.

// poseidonElt is one state element: an allocated variable, or a linear combination that
// has not been allocated yet (neptune's Elt::Allocated / Elt::Num).
type poseidonElt struct {
	allocated bool
	v         r1cs.Variable // when allocated
	lc        r1cs.LC       // when not allocated; owned by this element
	value     fr.Element
}

func (e *poseidonElt) setAllocated(v r1cs.Variable, value fr.Element) {
	e.allocated, e.v, e.value = true, v, value
	e.lc.Reset()
}

// addScaledTo appends k·e to lc.
func (e *poseidonElt) addScaledTo(lc *r1cs.LC, k *fr.Element) {
	if e.allocated {
		lc.AddTerm(e.v, k)
		return
	}
	lc.AddScaledLC(k, e.lc)
}

// poseidonCircuit holds the state while the hash is constructed. The two element arrays
// are swapped by each mixing step.
type poseidonCircuit struct {
	cs    r1cs.ConstraintSystem
	c     *PoseidonConstants
	cur   [poseidonMaxWidth]poseidonElt
	next  [poseidonMaxWidth]poseidonElt
	round int // mixing steps done, for the matrix schedule
	// rows are the scratch sides of the rows the S-boxes emit.
	a, b, cc r1cs.LC
}

func (p *poseidonCircuit) hash(cs r1cs.ConstraintSystem, c *PoseidonConstants, preimage []AllocatedNum) AllocatedNum {
	p.cs, p.c, p.round = cs, c, 0
	defer func() { p.cs, p.c = nil, nil }()
	t, half := c.Width, c.halfFull()
	k := c.Compressed

	// First full round: pre keys k[0..t], post keys k[t..2t].
	cs.Push("first round")
	tag := &p.cur[0]
	tag.allocated = false
	tag.value = c.DomainTag
	tag.value.Add(&tag.value, &k[0])
	quintic(&tag.value)
	tag.value.Add(&tag.value, &k[t])
	tag.lc.Reset()
	tag.lc.AddTerm(r1cs.One, &tag.value)
	for i := 1; i < t; i++ {
		p.sboxPreAdd(i, preimage[i-1], &k[i], &k[t+i])
	}
	cs.Pop()
	k = k[2*t:]
	p.mix()

	for r := 1; r < half; r++ {
		cs.Push(fmt.Sprintf("initial full round %d", r))
		p.fullRound(k[:t])
		cs.Pop()
		k = k[t:]
	}
	for r := range c.PartialRounds {
		cs.Push(fmt.Sprintf("partial round %d", r))
		p.sbox(0, &k[0])
		cs.Pop()
		k = k[1:]
		p.mix()
	}
	for r := 0; r < half-1; r++ {
		cs.Push(fmt.Sprintf("final full round %d", r))
		p.fullRound(k[:t])
		cs.Pop()
		k = k[t:]
	}
	cs.Push("terminal full round")
	p.fullRound(nil)
	cs.Pop()

	cs.Push("hash result")
	p.ensureAllocated(1)
	cs.Pop()
	return AllocatedNum{Var: p.cur[1].v, Value: p.cur[1].value}
}

// fullRound applies the S-box to every element (post keys, or none for the terminal
// round) and mixes.
func (p *poseidonCircuit) fullRound(post []fr.Element) {
	for i := range p.c.Width {
		if post == nil {
			p.sbox(i, nil)
		} else {
			p.sbox(i, &post[i])
		}
	}
	p.mix()
}

// ensureAllocated turns element i into a variable: aux v, row lc | ONE | v.
func (p *poseidonCircuit) ensureAllocated(i int) {
	e := &p.cur[i]
	if e.allocated {
		return
	}
	v := p.cs.Alloc(e.value)
	p.b.Reset()
	p.b.Add(r1cs.One)
	p.cc.Reset()
	p.cc.Add(v)
	// e.lc is handed over to Enforce (which may reorder it) and dropped afterwards.
	p.cs.Enforce("enforce num allocation preserves lc", &e.lc, &p.b, &p.cc)
	e.setAllocated(v, e.value)
}

// sbox is neptune's quintic_s_box on element i: ensure_allocated → l; l² (row l | l | l²);
// l⁴ (row l² | l² | l⁴); l⁵ = l·l⁴ + post (row l | l⁴ | l⁵ − post·ONE, or l | l⁴ | l⁵ with
// no key).
func (p *poseidonCircuit) sbox(i int, post *fr.Element) {
	p.ensureAllocated(i)
	l := p.cur[i]
	l4 := p.squareRows(l.v, l.value, nil)

	var l5 fr.Element
	l5.Mul(&l.value, &l4.value)
	if post != nil {
		l5.Add(&l5, post)
	}
	v5 := p.cs.Alloc(l5)
	p.a.Reset()
	p.a.Add(l.v)
	p.b.Reset()
	p.b.Add(l4.v)
	p.cc.Reset()
	p.cc.Add(v5)
	if post != nil {
		p.cc.SubTerm(r1cs.One, post)
	}
	p.cs.Enforce("mul sum constraint", &p.a, &p.b, &p.cc)
	p.cur[i].setAllocated(v5, l5)
}

// sboxPreAdd is neptune's quintic_s_box_pre_add for the first round, on the given
// preimage variable l: (l+pre)² (row l + pre·ONE | l + pre·ONE | l²); l⁴ (row l² | l² | l⁴);
// l⁵ = (l+pre)·l⁴ + post (row l + pre·ONE | l⁴ | l⁵ − post·ONE).
func (p *poseidonCircuit) sboxPreAdd(i int, l AllocatedNum, pre, post *fr.Element) {
	var shifted fr.Element
	shifted.Add(&l.Value, pre)
	l4 := p.squareRows(l.Var, shifted, pre)

	var l5 fr.Element
	l5.Mul(&shifted, &l4.value)
	l5.Add(&l5, post)
	v5 := p.cs.Alloc(l5)
	p.a.Reset()
	p.a.Add(l.Var)
	p.a.AddTerm(r1cs.One, pre)
	p.b.Reset()
	p.b.Add(l4.v)
	p.cc.Reset()
	p.cc.Add(v5)
	p.cc.SubTerm(r1cs.One, post)
	p.cs.Enforce("mul sum constraint pre-post-add", &p.a, &p.b, &p.cc)
	p.cur[i].setAllocated(v5, l5)
}

// squareRows emits l² and l⁴ and returns l⁴. base is the value of l, plus pre when pre is
// non-nil, in which case the first row squares l + pre·ONE.
func (p *poseidonCircuit) squareRows(l r1cs.Variable, base fr.Element, pre *fr.Element) (l4 poseidonElt) {
	var l2 poseidonElt
	l2.value.Square(&base)
	l2.v = p.cs.Alloc(l2.value)
	p.a.Reset()
	p.a.Add(l)
	p.b.Reset()
	p.b.Add(l)
	if pre != nil {
		p.a.AddTerm(r1cs.One, pre)
		p.b.AddTerm(r1cs.One, pre)
	}
	p.cc.Reset()
	p.cc.Add(l2.v)
	p.cs.Enforce("squaring constraint", &p.a, &p.b, &p.cc)

	l4.value.Square(&l2.value)
	l4.v = p.cs.Alloc(l4.value)
	p.a.Reset()
	p.a.Add(l2.v)
	p.b.Reset()
	p.b.Add(l2.v)
	p.cc.Reset()
	p.cc.Add(l4.v)
	p.cs.Enforce("squaring constraint", &p.a, &p.b, &p.cc)
	return l4
}

// mix applies mixing step p.round with the same schedule as the native hash, building
// linear combinations (Num addition and scaling) in p.next and swapping it in.
func (p *poseidonCircuit) mix() {
	c, t, half := p.c, p.c.Width, p.c.halfFull()
	switch r := p.round; {
	case r == half-1:
		p.mixDense(c.preSparse)
	case r >= half && r < half+c.PartialRounds:
		p.mixSparse(&c.sparse[r-half])
	default:
		p.mixDense(c.mdsFlat)
	}
	p.cur, p.next = p.next, p.cur
	for i := range t {
		p.next[i].lc.Reset()
	}
	p.round++
}

// mixDense: next[j] = Σ_i m[i][j]·cur[i] (row-vector product, as neptune).
func (p *poseidonCircuit) mixDense(m []fr.Element) {
	t := p.c.Width
	var tmp fr.Element
	for j := range t {
		out := &p.next[j]
		out.allocated = false
		out.lc.Reset()
		out.value.SetZero()
		for i := range t {
			k := &m[i*t+j]
			p.cur[i].addScaledTo(&out.lc, k)
			tmp.Mul(k, &p.cur[i].value)
			out.value.Add(&out.value, &tmp)
		}
		out.lc.Canonicalize()
	}
}

// mixSparse: next[0] = Σ wHat[i]·cur[i]; next[j] = cur[j] + vRest[j−1]·cur[0].
func (p *poseidonCircuit) mixSparse(s *sparseMatrix) {
	t := p.c.Width
	var tmp fr.Element
	first := &p.next[0]
	first.allocated = false
	first.lc.Reset()
	first.value.SetZero()
	for i := range t {
		p.cur[i].addScaledTo(&first.lc, &s.wHat[i])
		tmp.Mul(&s.wHat[i], &p.cur[i].value)
		first.value.Add(&first.value, &tmp)
	}
	first.lc.Canonicalize()
	one := r1cs.CoeffOne()
	for j := 1; j < t; j++ {
		out := &p.next[j]
		out.allocated = false
		out.lc.Reset()
		p.cur[j].addScaledTo(&out.lc, &one)
		p.cur[0].addScaledTo(&out.lc, &s.vRest[j-1])
		out.lc.Canonicalize()
		tmp.Mul(&s.vRest[j-1], &p.cur[0].value)
		out.value.Add(&p.cur[j].value, &tmp)
	}
}
