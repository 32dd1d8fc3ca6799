package gadget

import (
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// AuxCount is the number of aux variables (= rows) the circuit of c allocates.
func (c *PoseidonConstants) AuxCount() int {
	t := c.Width
	return 3*(t-1) + 4*t*(c.FullRounds-1) + 4*c.PartialRounds + 1
}

// WitnessAux computes, natively, the values of every aux variable PoseidonHashCircuit
// allocates for preimage, in allocation order, into aux (len AuxCount), and
// returns the digest (the last of them). It is the fast witness fill for generators that
// need the values but not the rows; it allocates nothing.
//
// The circuit follows the optimized static schedule, so its variables are the native
// intermediates: per S-box in the first round (l+pre)², its square and (l+pre)·l⁴ + post;
// per later S-box the input state element (ensure_allocated), l², l⁴ and l⁵ (+ key);
// finally state[1].
func (c *PoseidonConstants) WitnessAux(aux []fr.Element, preimage []fr.Element) (fr.Element, error) {
	if len(preimage) != c.Arity {
		return fr.Element{}, fmt.Errorf("%w: got %d elements, arity %d", ErrPoseidonPreimage, len(preimage), c.Arity)
	}
	if len(aux) != c.AuxCount() {
		return fr.Element{}, fmt.Errorf("gadget: Poseidon witness buffer has %d slots, want %d", len(aux), c.AuxCount())
	}
	tr := poseidonTracer{c: c, aux: aux}
	s := &tr.s
	t, k := c.Width, c.Compressed
	s[0] = c.DomainTag
	copy(s[1:t], preimage)
	for i := range t {
		s[i].Add(&s[i], &k[i])
	}
	// First round: the tag's S-box is a constant; the others use the pre-added input.
	quintic(&s[0])
	s[0].Add(&s[0], &k[t])
	for i := 1; i < t; i++ {
		tr.sbox(i, &k[t+i])
	}
	tr.k = k[2*t:]
	tr.mix()
	for range c.halfFull() - 1 {
		tr.fullRound(true)
	}
	for range c.PartialRounds {
		tr.emit(&s[0])
		tr.sbox(0, &tr.k[0])
		tr.k = tr.k[1:]
		tr.mix()
	}
	for range c.halfFull() - 1 {
		tr.fullRound(true)
	}
	tr.fullRound(false)
	tr.emit(&s[1])
	return s[1], nil
}

// poseidonTracer runs the permutation while recording the circuit's aux values.
type poseidonTracer struct {
	c     *PoseidonConstants
	s     poseidonState
	aux   []fr.Element
	n     int          // aux values written
	k     []fr.Element // compressed constants not yet used
	round int          // mixing steps done
}

func (tr *poseidonTracer) emit(v *fr.Element) {
	tr.aux[tr.n] = *v
	tr.n++
}

func (tr *poseidonTracer) mix() {
	tr.c.mix(&tr.s, tr.round)
	tr.round++
}

// fullRound: each element is allocated (its value emitted), then S-boxed with the next
// key, or with none in the terminal round; then mix.
func (tr *poseidonTracer) fullRound(keyed bool) {
	if tr.c.sboxVec {
		tr.fullRoundVector(keyed)
		return
	}
	for i := range tr.c.Width {
		tr.emit(&tr.s[i])
		if keyed {
			tr.sbox(i, &tr.k[i])
		} else {
			tr.sbox(i, nil)
		}
	}
	if keyed {
		tr.k = tr.k[tr.c.Width:]
	}
	tr.mix()
}

// sbox sets s[i] ← s[i]⁵ (+ key) and emits s[i]², s[i]⁴ and the result.
func (tr *poseidonTracer) sbox(i int, key *fr.Element) {
	x := &tr.s[i]
	var x2, x4 fr.Element
	x2.Square(x)
	x4.Square(&x2)
	x.Mul(x, &x4)
	if key != nil {
		x.Add(x, key)
	}
	tr.emit(&x2)
	tr.emit(&x4)
	tr.emit(x)
}

// fullRoundVector is fullRound with the t S-boxes as vector Muls; it emits the same values
// in the same order (per element: input, x², x⁴, x⁵ (+ key)).
func (tr *poseidonTracer) fullRoundVector(keyed bool) {
	t := tr.c.Width
	out := tr.aux[tr.n : tr.n+4*t]
	tr.n += 4 * t
	x := fr.Vector(tr.s[:t])
	for i := range t {
		out[4*i] = x[i]
	}
	var x2, x4 poseidonState
	quinticVector(x, x2[:t], x4[:t])
	if keyed {
		x.Add(x, tr.k[:t])
		tr.k = tr.k[t:]
	}
	for i := range t {
		out[4*i+1], out[4*i+2], out[4*i+3] = x2[i], x4[i], x[i]
	}
	tr.mix()
}
