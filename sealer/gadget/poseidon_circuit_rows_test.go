package gadget

import (
	"fmt"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/snarkpipe/snarkpipe/prover/r1cs"
)

// Row-by-row expectations for arity 2 (t = 3, RF = 8, RP = 55), written from spec §5.3.
// The preimage x1, x2 is aux 0, 1; hash row j defines aux 2 + j.

// recordPoseidon2 records the arity-2 hash of two fresh aux variables.
func recordPoseidon2(t *testing.T) (*r1cs.Shape, *PoseidonConstants) {
	t.Helper()
	c := poseidonForTest(t, 2)
	rec := r1cs.NewRecorder(r1cs.Capacity{})
	if _, err := PoseidonHashCircuit(rec, c, poseidonAllocPreimage(rec, make([]fr.Element, 2))); err != nil {
		t.Fatal(err)
	}
	return rec.Finish(), c
}

// poseidonLC builds a canonical LC from (variable, coefficient) pairs.
func poseidonLC(terms ...any) r1cs.LC {
	var lc r1cs.LC
	for i := 0; i < len(terms); i += 2 {
		v := terms[i].(r1cs.Variable)
		switch k := terms[i+1].(type) {
		case int:
			var e fr.Element
			e.SetInt64(int64(k))
			lc.AddTerm(v, &e)
		case fr.Element:
			lc.AddTerm(v, &k)
		default:
			panic(fmt.Sprintf("bad coefficient %T", k))
		}
	}
	lc.Canonicalize()
	return lc
}

func poseidonNeg(e fr.Element) fr.Element {
	var n fr.Element
	n.Neg(&e)
	return n
}

func assertPoseidonRow(t *testing.T, s *r1cs.Shape, row int, a, b, c r1cs.LC) {
	t.Helper()
	ga, gb, gc := s.Row(row)
	for _, side := range []struct {
		name      string
		got, want r1cs.LC
	}{{"A", ga, a}, {"B", gb, b}, {"C", gc, c}} {
		if !poseidonLCEqual(side.got, side.want) {
			t.Errorf("row %d side %s:\n got  %s\n want %s", row, side.name, poseidonLCString(side.got), poseidonLCString(side.want))
		}
	}
}

func poseidonLCEqual(a, b r1cs.LC) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Var != b[i].Var || !a[i].Coeff.Equal(&b[i].Coeff) {
			return false
		}
	}
	return true
}

func poseidonLCString(lc r1cs.LC) string {
	s := ""
	for _, term := range lc {
		s += fmt.Sprintf("%s·%s ", term.Coeff.String(), term.Var)
	}
	return s
}

// poseidon2RowAux is the aux variable that hash row j defines (after the 2 preimage aux).
func poseidon2RowAux(j int) r1cs.Variable { return r1cs.Aux(2 + j) }

// TestPoseidonCircuitRowsFirstRound: the first full round emits no row for the tag and,
// for each preimage element l with keys pre = crc[i], post = crc[t+i]:
// l + pre·ONE | l + pre·ONE | l²;  l² | l² | l⁴;  l + pre·ONE | l⁴ | l⁵ − post·ONE.
func TestPoseidonCircuitRowsFirstRound(t *testing.T) {
	s, c := recordPoseidon2(t)
	k, tw := c.Compressed, c.Width
	for i := 1; i <= 2; i++ {
		x := r1cs.Aux(i - 1)
		base := 3 * (i - 1)
		shifted := poseidonLC(x, 1, r1cs.One, k[i])
		assertPoseidonRow(t, s, base, shifted, shifted, poseidonLC(poseidon2RowAux(base), 1))
		assertPoseidonRow(t, s, base+1, poseidonLC(poseidon2RowAux(base), 1), poseidonLC(poseidon2RowAux(base), 1), poseidonLC(poseidon2RowAux(base+1), 1))
		assertPoseidonRow(t, s, base+2, shifted, poseidonLC(poseidon2RowAux(base+1), 1),
			poseidonLC(poseidon2RowAux(base+2), 1, r1cs.One, poseidonNeg(k[tw+i])))
	}
}

// TestPoseidonCircuitRowsSecondFullRound: after the first round's mix with M, element j is
// M[0][j]·c0·ONE + M[1][j]·l5₁ + M[2][j]·l5₂ with c0 = (tag + crc[0])⁵ + crc[t]. The second
// full round allocates it (lc | ONE | v) and applies the keyed S-box (post = crc[2t + j]).
func TestPoseidonCircuitRowsSecondFullRound(t *testing.T) {
	s, c := recordPoseidon2(t)
	k, tw, m := c.Compressed, c.Width, c.mds
	var c0 fr.Element
	c0.Add(&c.DomainTag, &k[0])
	quintic(&c0)
	c0.Add(&c0, &k[tw])
	l5 := []r1cs.Variable{poseidon2RowAux(2), poseidon2RowAux(5)} // first-round outputs of x1, x2
	for j := range tw {
		base := 6 + 4*j
		var k0 fr.Element
		k0.Mul(&m[0][j], &c0)
		lc := poseidonLC(r1cs.One, k0, l5[0], m[1][j], l5[1], m[2][j])
		v := poseidon2RowAux(base)
		assertPoseidonRow(t, s, base, lc, poseidonLC(r1cs.One, 1), poseidonLC(v, 1))
		assertPoseidonRow(t, s, base+1, poseidonLC(v, 1), poseidonLC(v, 1), poseidonLC(poseidon2RowAux(base+1), 1))
		assertPoseidonRow(t, s, base+2, poseidonLC(poseidon2RowAux(base+1), 1), poseidonLC(poseidon2RowAux(base+1), 1), poseidonLC(poseidon2RowAux(base+2), 1))
		assertPoseidonRow(t, s, base+3, poseidonLC(v, 1), poseidonLC(poseidon2RowAux(base+2), 1),
			poseidonLC(poseidon2RowAux(base+3), 1, r1cs.One, poseidonNeg(k[2*tw+j])))
	}
}

// TestPoseidonCircuitRowsFirstPartialRound: the fourth full round (rows 30–41) mixes with
// the pre-sparse matrix P, so partial round 0 (rows 42–45) allocates
// Σ_i P[i][0]·l5ᵢ, S-boxes it with key crc[(RF/2+1)·t], and the sparse mix that follows
// makes the next S-box input Σ_i ŵ[i]·stateᵢ: ŵ[0] on the new l⁵ and, merged per
// variable, Σ_{i≥1} ŵ[i]·P[v][i] on each round-4 output l5ᵥ (row 46).
func TestPoseidonCircuitRowsFirstPartialRound(t *testing.T) {
	s, c := recordPoseidon2(t)
	k, tw := c.Compressed, c.Width
	pre := func(i, j int) *fr.Element { return &c.preSparse[i*tw+j] }
	round4 := []r1cs.Variable{poseidon2RowAux(33), poseidon2RowAux(37), poseidon2RowAux(41)}

	var in0 r1cs.LC
	for i := range tw {
		in0.AddTerm(round4[i], pre(i, 0))
	}
	in0.Canonicalize()
	v := poseidon2RowAux(42)
	assertPoseidonRow(t, s, 42, in0, poseidonLC(r1cs.One, 1), poseidonLC(v, 1))
	assertPoseidonRow(t, s, 43, poseidonLC(v, 1), poseidonLC(v, 1), poseidonLC(poseidon2RowAux(43), 1))
	assertPoseidonRow(t, s, 44, poseidonLC(poseidon2RowAux(43), 1), poseidonLC(poseidon2RowAux(43), 1), poseidonLC(poseidon2RowAux(44), 1))
	key := k[(c.FullRounds/2+1)*tw]
	assertPoseidonRow(t, s, 45, poseidonLC(v, 1), poseidonLC(poseidon2RowAux(44), 1), poseidonLC(poseidon2RowAux(45), 1, r1cs.One, poseidonNeg(key)))

	w := c.sparse[0].wHat
	next := poseidonLC(poseidon2RowAux(45), w[0])
	for vi := range tw {
		var coeff, tmp fr.Element
		for i := 1; i < tw; i++ {
			tmp.Mul(&w[i], pre(vi, i))
			coeff.Add(&coeff, &tmp)
		}
		next.AddTerm(round4[vi], &coeff)
	}
	next.Canonicalize()
	assertPoseidonRow(t, s, 46, next, poseidonLC(r1cs.One, 1), poseidonLC(poseidon2RowAux(46), 1))
}

// TestPoseidonCircuitRowsResult: the last row allocates state[1] after the terminal mix
// with M: Σ_i M[i][1]·l5ᵢ over the terminal round's outputs, with no constant term.
func TestPoseidonCircuitRowsResult(t *testing.T) {
	s, c := recordPoseidon2(t)
	last := s.NumConstraints - 1
	if last != 310 {
		t.Fatalf("%d rows", last+1)
	}
	var want r1cs.LC
	for i := range c.Width {
		want.AddTerm(poseidon2RowAux(last-c.Width*4+4*i+3), &c.mds[i][1])
	}
	want.Canonicalize()
	assertPoseidonRow(t, s, last, want, poseidonLC(r1cs.One, 1), poseidonLC(poseidon2RowAux(last), 1))
}
