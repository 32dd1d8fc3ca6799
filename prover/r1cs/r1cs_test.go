package r1cs_test

import (
	"errors"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/snarkpipe/snarkpipe/prover/r1cs"
	"github.com/snarkpipe/snarkpipe/prover/r1cs/r1cstest"
)

func randomCircuits() []*r1cstest.Random {
	return []*r1cstest.Random{
		{Seed: 1, Constraints: 1, Inputs: 0},
		{Seed: 2, Constraints: 10, Inputs: 3, Unused: 2},
		{Seed: 3, Constraints: 1000, Inputs: 17, Unused: 50},
		{Seed: 4, Constraints: 40000, Inputs: 5, Unused: 100}, // spans several evaluator tasks
	}
}

func TestEvalMatchesWitness(t *testing.T) {
	for _, c := range randomCircuits() {
		w := r1cs.NewWitness(r1cs.Capacity{})
		rec := r1cs.NewRecorder(r1cs.Capacity{})
		if err := c.Synthesize(w); err != nil {
			t.Fatal(err)
		}
		if err := c.Synthesize(rec); err != nil {
			t.Fatal(err)
		}
		w.Finish()
		shape := rec.Finish()
		if err := w.Check(shape.Sizes); err != nil {
			t.Fatal(err)
		}
		if err := shape.Validate(); err != nil {
			t.Fatal(err)
		}
		rows := shape.Rows()
		a, b, cc := make([]fr.Element, rows), make([]fr.Element, rows), make([]fr.Element, rows)
		for _, tasks := range []int{1, 3} {
			if err := shape.Eval(w.Assignment(), a, b, cc, tasks); err != nil {
				t.Fatal(err)
			}
			for j := 0; j < rows; j++ {
				if a[j] != w.A[j] || b[j] != w.B[j] || cc[j] != w.C[j] {
					t.Fatalf("%s: row %d differs between evaluator and witness builder", c.ID(), j)
				}
			}
		}
	}
}

func TestCounterEqualsRecorder(t *testing.T) {
	for _, c := range randomCircuits() {
		cnt := r1cs.NewCounter()
		rec := r1cs.NewRecorder(r1cs.Capacity{})
		_ = c.Synthesize(cnt)
		_ = c.Synthesize(rec)
		want := rec.Finish().Counts()
		if got := cnt.Counts(); got != want {
			t.Fatalf("%s: counter %+v, recorder %+v", c.ID(), got, want)
		}
		if want.Sizes.NumConstraints != c.Constraints || want.NumInputs != c.Inputs+1 {
			t.Fatalf("%s: sizes %+v", c.ID(), want.Sizes)
		}
	}
}

func TestCheckerNamesFailingRow(t *testing.T) {
	c := &r1cstest.Random{Seed: 7, Constraints: 200, Inputs: 4}
	chk := r1cs.NewChecker()
	_ = c.Synthesize(chk)
	if err := chk.Err(); err != nil {
		t.Fatalf("random circuit unsatisfied: %v", err)
	}
	// A system whose row 2 is wrong: x·x = y with y ≠ x².
	bad := r1cs.NewChecker()
	var three, nine, ten fr.Element
	three.SetUint64(3)
	nine.SetUint64(9)
	ten.SetUint64(10)
	x := bad.Alloc(three)
	y := bad.Alloc(nine)
	z := bad.Alloc(ten)
	var a, b, o r1cs.LC
	enforce := func(ann string, l, r, out r1cs.Variable) {
		a.Reset()
		a.Add(l)
		b.Reset()
		b.Add(r)
		o.Reset()
		o.Add(out)
		bad.Enforce(ann, &a, &b, &o)
	}
	bad.Push("outer")
	enforce("ok0", x, x, y)
	enforce("ok1", x, r1cs.One, x)
	enforce("square", x, x, z)
	enforce("later", x, x, z)
	bad.Pop()
	var ue *r1cs.UnsatisfiedError
	if !errors.As(bad.Err(), &ue) || ue.Row != 2 || ue.Annotation != "outer/square" {
		t.Fatalf("got %v, want row 2 outer/square", bad.Err())
	}
}

func TestCanonicalDensity(t *testing.T) {
	rec := r1cs.NewRecorder(r1cs.Capacity{})
	var v fr.Element
	x := rec.Alloc(v)
	y := rec.Alloc(v)
	z := rec.Alloc(v)
	in := rec.AllocInput(v)
	var a, b, c r1cs.LC
	// A: x − x + y (x cancels), B: in + in (merges to 2·in), C: z.
	a.Add(x)
	a.Sub(x)
	a.Add(y)
	b.Add(in)
	b.Add(in)
	c.Add(z)
	rec.Enforce("row", &a, &b, &c)
	s := rec.Finish()
	if s.AAux.Get(x.Index()) || !s.AAux.Get(y.Index()) || s.AAux.Get(z.Index()) {
		t.Fatalf("A density wrong: %b", s.AAux.Words)
	}
	if !s.BInput.Get(in.Index()) || s.BInput.Get(0) || s.BAux.Count() != 0 {
		t.Fatal("B density wrong")
	}
	ra, rb, _ := s.Row(0)
	var two fr.Element
	two.SetUint64(2)
	if len(ra) != 1 || ra[0].Var != y || len(rb) != 1 || rb[0].Var != in || rb[0].Coeff != two {
		t.Fatalf("row 0 not canonical: A=%v B=%v", ra, rb)
	}
	// The per-input rows: A = input, B = C = 0.
	for i := 0; i < s.NumInputs; i++ {
		ia, ib, ic := s.Row(s.NumConstraints + i)
		if len(ia) != 1 || ia[0].Var != r1cs.Input(i) || len(ib) != 0 || len(ic) != 0 {
			t.Fatalf("input row %d wrong", i)
		}
	}
}

func TestDigestSeesAllocationOrder(t *testing.T) {
	build := func(swap bool) [32]byte {
		rec := r1cs.NewRecorder(r1cs.Capacity{})
		var v fr.Element
		x := rec.Alloc(v)
		y := rec.Alloc(v)
		if swap {
			x, y = y, x
		}
		var a, b, c r1cs.LC
		a.Add(x)
		b.Add(x)
		c.Add(y)
		rec.Enforce("", &a, &b, &c)
		return rec.Finish().Digest
	}
	if build(false) == build(true) {
		t.Fatal("digest ignores allocation order")
	}
	if build(false) != build(false) {
		t.Fatal("digest not deterministic")
	}
}

func TestNilSidesAndSizes(t *testing.T) {
	w := r1cs.NewWitness(r1cs.Capacity{})
	var a r1cs.LC
	a.Add(r1cs.One)
	w.Enforce("", &a, nil, nil)
	w.Finish()
	s := w.Sizes()
	if s.NumConstraints != 1 || s.NumInputs != 1 || s.Rows() != 2 || s.DomainSize() != 2 {
		t.Fatalf("sizes %+v", s)
	}
	one := r1cs.CoeffOne()
	if w.A[0] != one || !w.B[0].IsZero() || w.A[1] != one {
		t.Fatal("witness rows wrong")
	}
}

func TestAssignmentMatchesWitness(t *testing.T) {
	c := &r1cstest.Random{Seed: 31, Constraints: 500, Inputs: 7, Unused: 9}
	w := r1cs.NewWitness(r1cs.Capacity{})
	as := r1cs.NewAssignment(r1cs.Capacity{})
	_ = c.Synthesize(w)
	_ = c.Synthesize(as)
	wz, az := w.Assignment(), as.Z()
	if len(wz) != len(az) || as.EnforcedRows() != 500 {
		t.Fatalf("sizes differ: %d vs %d, rows %d", len(wz), len(az), as.EnforcedRows())
	}
	for i := range wz {
		if wz[i] != az[i] {
			t.Fatalf("value %d differs", i)
		}
	}
}

func TestCanonicalizeLongAndShort(t *testing.T) {
	for _, n := range []int{3, 40} {
		var lc r1cs.LC
		var one fr.Element
		one.SetOne()
		for i := n - 1; i >= 0; i-- {
			lc.AddTerm(r1cs.Aux(i%(n/2+1)), &one)
			lc.AddTerm(r1cs.Input(i), &one)
		}
		lc.Canonicalize()
		for i := 1; i < len(lc); i++ {
			if lc[i-1].Var >= lc[i].Var {
				t.Fatalf("n=%d: not sorted/merged at %d", n, i)
			}
		}
	}
	allocs := testing.AllocsPerRun(100, func() {
		lc := r1cs.LC{{Var: r1cs.Aux(3)}, {Var: r1cs.Aux(1)}, {Var: r1cs.Input(2)}}
		lc[0].Coeff.SetOne()
		lc[1].Coeff.SetOne()
		lc[2].Coeff.SetOne()
		lc.Canonicalize()
	})
	if allocs > 1 { // the literal itself
		t.Fatalf("Canonicalize allocates: %v", allocs)
	}
}

func TestWindowWritesAtAbsolutePositions(t *testing.T) {
	c := &r1cstest.Random{Seed: 41, Constraints: 50, Inputs: 2}
	full := r1cs.NewAssignment(r1cs.Capacity{})
	_ = c.Synthesize(full)
	inputs := make([]fr.Element, len(full.Inputs))
	aux := make([]fr.Element, len(full.Aux))
	inputs[0] = r1cs.CoeffOne()
	w := &r1cs.Window{Inputs: inputs, Aux: aux, NextInput: 1}
	_ = c.Synthesize(w)
	if w.Err() != nil || w.NextAux != len(aux) || w.NextInput != len(inputs) {
		t.Fatalf("window: err %v, %d aux, %d inputs", w.Err(), w.NextAux, w.NextInput)
	}
	for i := range aux {
		if aux[i] != full.Aux[i] {
			t.Fatalf("aux %d differs", i)
		}
	}
	short := &r1cs.Window{Inputs: inputs, Aux: aux[:10], NextInput: 1}
	_ = c.Synthesize(short)
	if !errors.Is(short.Err(), r1cs.ErrWindowFull) {
		t.Fatalf("overflow not reported: %v", short.Err())
	}
}
