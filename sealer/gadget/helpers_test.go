package gadget

import (
	"encoding/hex"
	"errors"
	"fmt"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/snarkpipe/snarkpipe/prover/r1cs"
)

// teeCS feeds one synthesis into a Recorder (shape) and a Checker (satisfaction) at once.
type teeCS struct {
	rec *r1cs.Recorder
	chk *r1cs.Checker
}

func (t *teeCS) Alloc(v fr.Element) r1cs.Variable {
	a, b := t.rec.Alloc(v), t.chk.Alloc(v)
	if a != b {
		panic("recorder and checker disagree on aux numbering")
	}
	return a
}

func (t *teeCS) AllocInput(v fr.Element) r1cs.Variable {
	a, b := t.rec.AllocInput(v), t.chk.AllocInput(v)
	if a != b {
		panic("recorder and checker disagree on input numbering")
	}
	return a
}

func (t *teeCS) Enforce(ann string, a, b, c *r1cs.LC) {
	t.rec.Enforce(ann, a, b, c)
	t.chk.Enforce(ann, a, b, c)
}

func (t *teeCS) Push(ns string) { t.rec.Push(ns); t.chk.Push(ns) }
func (t *teeCS) Pop()           { t.rec.Pop(); t.chk.Pop() }

// synth runs fn once into a recorder and a checker and returns both results.
func synth(fn func(cs r1cs.ConstraintSystem)) (*r1cs.Shape, error) {
	cs := &teeCS{rec: r1cs.NewRecorder(r1cs.Capacity{}), chk: r1cs.NewChecker()}
	fn(cs)
	return cs.rec.Finish(), cs.chk.Err()
}

// mustSynth is synth that fails the test when the system is not satisfied.
func mustSynth(t *testing.T, fn func(cs r1cs.ConstraintSystem)) *r1cs.Shape {
	t.Helper()
	shape, err := synth(fn)
	if err != nil {
		t.Fatalf("system not satisfied: %v", err)
	}
	return shape
}

// flipCS adds 1 to the value of aux number target (a 0/1 bit becomes 1/2 or flips when
// the caller passes a bit and uses flipBit) and passes everything else through.
type flipCS struct {
	r1cs.ConstraintSystem
	target, n int
}

func (f *flipCS) Alloc(v fr.Element) r1cs.Variable {
	if f.n == f.target {
		var one fr.Element
		one.SetOne()
		if v.IsZero() || v.IsOne() {
			v.Sub(&one, &v) // flip a bit
		} else {
			v.Add(&v, &one)
		}
	}
	f.n++
	return f.ConstraintSystem.Alloc(v)
}

// failingRow synthesizes fn with aux number target tampered and returns the row the
// checker names, or -1 when the system is still satisfied.
func failingRow(t *testing.T, target int, fn func(cs r1cs.ConstraintSystem)) int {
	t.Helper()
	chk := r1cs.NewChecker()
	fn(&flipCS{ConstraintSystem: chk, target: target})
	err := chk.Err()
	if err == nil {
		return -1
	}
	var ue *r1cs.UnsatisfiedError
	if !errors.As(err, &ue) {
		t.Fatalf("checker error %v is not an UnsatisfiedError", err)
	}
	return ue.Row
}

// tm is one expected term: coefficient c (a small integer) times v.
type tm struct {
	v r1cs.Variable
	c int64
}

func aux(i int) r1cs.Variable { return r1cs.Aux(i) }

var one = r1cs.One

// lcOf builds a canonical linear combination from small-integer terms.
func lcOf(terms ...tm) r1cs.LC {
	var lc r1cs.LC
	for _, t := range terms {
		var c fr.Element
		c.SetInt64(t.c)
		lc.AddTerm(t.v, &c)
	}
	lc.Canonicalize()
	return lc
}

// lcPow2 builds Σ 2^k·vars[k] plus extra terms, canonical.
func lcPow2(vars []r1cs.Variable, extra ...tm) r1cs.LC {
	var lc r1cs.LC
	for k, v := range vars {
		lc.AddTerm(v, &powersOfTwo[k])
	}
	for _, t := range extra {
		var c fr.Element
		c.SetInt64(t.c)
		lc.AddTerm(t.v, &c)
	}
	lc.Canonicalize()
	return lc
}

func lcString(lc r1cs.LC) string {
	s := "["
	for i, t := range lc {
		if i > 0 {
			s += " + "
		}
		s += fmt.Sprintf("%s·%s", t.Coeff.String(), t.Var)
	}
	return s + "]"
}

func equalLC(x, y r1cs.LC) bool {
	if len(x) != len(y) {
		return false
	}
	for i := range x {
		if x[i].Var != y[i].Var || x[i].Coeff != y[i].Coeff {
			return false
		}
	}
	return true
}

// assertRow checks row j of shape side by side.
func assertRow(t *testing.T, shape *r1cs.Shape, j int, a, b, c r1cs.LC) {
	t.Helper()
	ga, gb, gc := shape.Row(j)
	for _, side := range []struct {
		name      string
		got, want r1cs.LC
	}{{"A", ga, a}, {"B", gb, b}, {"C", gc, c}} {
		if !equalLC(side.got, side.want) {
			t.Errorf("row %d side %s = %s, want %s", j, side.name, lcString(side.got), lcString(side.want))
		}
	}
}

// assertSizes checks rows, aux and inputs (ONE included).
func assertSizes(t *testing.T, shape *r1cs.Shape, rows, auxCount, inputs int) {
	t.Helper()
	if shape.NumConstraints != rows || shape.NumAux != auxCount || shape.NumInputs != inputs {
		t.Errorf("rows/aux/inputs = %d/%d/%d, want %d/%d/%d", shape.NumConstraints, shape.NumAux, shape.NumInputs, rows, auxCount, inputs)
	}
}

// assertDigest pins a shape fingerprint. The digest covers every row's sorted terms per
// side, the sizes and the coefficient table, so any change to the emitted R1CS changes it.
func assertDigest(t *testing.T, shape *r1cs.Shape, want string) {
	t.Helper()
	if got := hex.EncodeToString(shape.Digest[:]); got != want {
		t.Errorf("shape digest %s, want %s", got, want)
	}
}

func frU64(v uint64) fr.Element {
	var e fr.Element
	e.SetUint64(v)
	return e
}

func randFr() fr.Element {
	var e fr.Element
	e.MustSetRandom()
	return e
}
