package gadget

import (
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/snarkpipe/snarkpipe/prover/r1cs"
)

// poseidonCircuitRows are the upstream row counts of §5.3 (nep test_poseidon_hash, rfp
// test_hash2_circuit and test_hash_single_column_circuit).
var poseidonCircuitRows = map[int]int{2: 311, 4: 377, 8: 505, 11: 598, 16: 761, 24: 1009, 36: 1385}

// poseidonAllocPreimage allocates the preimage as the first aux variables.
func poseidonAllocPreimage(cs r1cs.ConstraintSystem, values []fr.Element) []AllocatedNum {
	out := make([]AllocatedNum, len(values))
	for i := range values {
		out[i] = AllocNum(cs, values[i])
	}
	return out
}

func TestPoseidonCircuitCounts(t *testing.T) {
	for _, arity := range PoseidonArities {
		c := poseidonForTest(t, arity)
		cs := r1cs.NewCounter()
		if _, err := PoseidonHashCircuit(cs, c, poseidonAllocPreimage(cs, poseidonAscending(arity))); err != nil {
			t.Fatal(err)
		}
		s := cs.Sizes()
		want := poseidonCircuitRows[arity]
		if s.NumConstraints != want || s.NumAux-arity != want || s.NumInputs != 1 {
			t.Errorf("arity %d: rows %d aux %d inputs %d, want %d rows, %d aux, 1 input",
				arity, s.NumConstraints, s.NumAux-arity, s.NumInputs, want, want)
		}
		// The formula of §5.3 for the same instance.
		tw := c.Width
		formula := 3*(tw*c.FullRounds+c.PartialRounds-1) + (tw*c.FullRounds + c.PartialRounds - arity)
		if formula != want {
			t.Errorf("arity %d: formula gives %d", arity, formula)
		}
	}
}

// TestPoseidonCircuitMatchesNative: the circuit digest equals the native digest, the
// assignment satisfies every row (Checker) and the witness holds the digest (§11.2f).
func TestPoseidonCircuitMatchesNative(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	trials := 4
	if testing.Short() {
		trials = 1
	}
	for _, arity := range PoseidonArities {
		c := poseidonForTest(t, arity)
		for trial := range trials + 1 {
			in := poseidonAscending(arity) // the §10 preimage first, then random ones
			if trial > 0 {
				in = poseidonRandom(rng, arity)
			}
			var want fr.Element
			if err := c.Hash(&want, in); err != nil {
				t.Fatal(err)
			}

			chk := r1cs.NewChecker()
			out, err := PoseidonHashCircuit(chk, c, poseidonAllocPreimage(chk, in))
			if err != nil {
				t.Fatal(err)
			}
			if err := chk.Err(); err != nil {
				t.Fatalf("arity %d: %v", arity, err)
			}
			if !out.Value.Equal(&want) {
				t.Fatalf("arity %d: circuit digest %s, native %s", arity, out.Value.String(), want.String())
			}

			w := r1cs.NewWitness(r1cs.Capacity{})
			outW, err := PoseidonHashCircuit(w, c, poseidonAllocPreimage(w, in))
			if err != nil {
				t.Fatal(err)
			}
			if got := w.Aux[outW.Var.Index()]; !outW.Var.IsAux() || !got.Equal(&want) {
				t.Fatalf("arity %d: witness digest %s", arity, got.String())
			}
			for j := range w.A {
				var ab fr.Element
				ab.Mul(&w.A[j], &w.B[j])
				if !ab.Equal(&w.C[j]) {
					t.Fatalf("arity %d: witness row %d unsatisfied", arity, j)
				}
			}
		}
	}
}

// poseidonTamperCS adds 1 to the value of the target-th aux allocation.
type poseidonTamperCS struct {
	r1cs.ConstraintSystem
	target, n int
}

func (t *poseidonTamperCS) Alloc(v fr.Element) r1cs.Variable {
	if t.n == t.target {
		one := r1cs.CoeffOne()
		v.Add(&v, &one)
	}
	t.n++
	return t.ConstraintSystem.Alloc(v)
}

// TestPoseidonCircuitTamperedAux: every aux the hash allocates is defined by the row
// emitted right after it, so a wrong value for hash aux j makes exactly row j fail first.
func TestPoseidonCircuitTamperedAux(t *testing.T) {
	for _, arity := range []int{2, 8, 11} {
		c := poseidonForTest(t, arity)
		rows := poseidonCircuitRows[arity]
		for _, j := range []int{0, 1, 2, 3 * arity, 3*arity + 1, rows / 2, rows - 2, rows - 1} {
			chk := r1cs.NewChecker()
			cs := &poseidonTamperCS{ConstraintSystem: chk, target: arity + j}
			if _, err := PoseidonHashCircuit(cs, c, poseidonAllocPreimage(cs, poseidonAscending(arity))); err != nil {
				t.Fatal(err)
			}
			var unsat *r1cs.UnsatisfiedError
			if err := chk.Err(); !errors.As(err, &unsat) || unsat.Row != j {
				t.Errorf("arity %d, tampered hash aux %d: checker says %v, want row %d", arity, j, err, j)
				continue
			}
			if !strings.Contains(unsat.Annotation, "round") && !strings.Contains(unsat.Annotation, "hash result") {
				t.Errorf("arity %d row %d: annotation %q names no round", arity, j, unsat.Annotation)
			}
		}
	}
}

func TestPoseidonCircuitBadInput(t *testing.T) {
	cs := r1cs.NewCounter()
	c := poseidonForTest(t, 8)
	for _, n := range []int{0, 7, 9} {
		if _, err := PoseidonHashCircuit(cs, c, make([]AllocatedNum, n)); !errors.Is(err, ErrPoseidonPreimage) {
			t.Errorf("%d elements: err = %v", n, err)
		}
	}
	if _, err := PoseidonHashCircuit(cs, nil, nil); !errors.Is(err, ErrPoseidonConstants) {
		t.Errorf("nil constants: err = %v", err)
	}
	if _, err := HashMDCircuit(cs, make([]AllocatedNum, 1)); !errors.Is(err, ErrPoseidonPreimage) {
		t.Errorf("hash_md of 1 element: err = %v", err)
	}
	if s := cs.Sizes(); s.NumConstraints != 0 || s.NumAux != 0 {
		t.Errorf("rejected calls emitted %+v", s)
	}
}

// TestHashMDCircuit: rfp's hash_md_circuit costs 2 × 1385 = 2770 rows for 71 elements
// (§10) and equals the native HashMD; a short last chunk adds unconstrained zero aux.
func TestHashMDCircuit(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	ones := make([]fr.Element, 71)
	for i := range ones {
		ones[i].SetOne()
	}
	cases := []struct {
		in      []fr.Element
		padding int
	}{
		{ones, 0},
		{poseidonRandom(rng, 1+35+10), 25},
		{poseidonRandom(rng, 2), 34},
	}
	for _, tc := range cases {
		var want fr.Element
		if err := HashMD(&want, tc.in); err != nil {
			t.Fatal(err)
		}
		chk := r1cs.NewChecker()
		out, err := HashMDCircuit(chk, poseidonAllocPreimage(chk, tc.in))
		if err != nil {
			t.Fatal(err)
		}
		if err := chk.Err(); err != nil {
			t.Fatal(err)
		}
		if !out.Value.Equal(&want) {
			t.Errorf("%d elements: circuit %s, native %s", len(tc.in), out.Value.String(), want.String())
		}
		hashes := (len(tc.in) - 1 + 34) / 35
		s := chk.Sizes()
		if s.NumConstraints != 1385*hashes || s.NumAux != len(tc.in)+1385*hashes+tc.padding {
			t.Errorf("%d elements: %+v, want %d rows, %d aux", len(tc.in), s, 1385*hashes, len(tc.in)+1385*hashes+tc.padding)
		}
	}
}

func BenchmarkPoseidonCircuitWitness8(b *testing.B) {
	c := poseidonForTest(b, 8)
	in := poseidonAscending(8)
	b.ReportAllocs()
	for b.Loop() {
		w := r1cs.NewWitness(r1cs.Capacity{Aux: 8 + 505, Constraints: 505, Inputs: 1})
		if _, err := PoseidonHashCircuit(w, c, poseidonAllocPreimage(w, in)); err != nil {
			b.Fatal(err)
		}
	}
}

// TestPoseidonWitnessAux: the native trace equals, value for value, the aux assignment the
// circuit makes (and which the Checker accepted above), for every arity.
func TestPoseidonWitnessAux(t *testing.T) {
	rng := rand.New(rand.NewPCG(51, 52))
	for _, arity := range PoseidonArities {
		c := poseidonForTest(t, arity)
		in := poseidonRandom(rng, arity)
		aux := make([]fr.Element, c.AuxCount())
		digest, err := c.WitnessAux(aux, in)
		if err != nil {
			t.Fatal(err)
		}
		if len(aux) != poseidonCircuitRows[arity] {
			t.Fatalf("arity %d: AuxCount %d", arity, len(aux))
		}
		w := r1cs.NewWitness(r1cs.Capacity{})
		out, err := PoseidonHashCircuit(w, c, poseidonAllocPreimage(w, in))
		if err != nil {
			t.Fatal(err)
		}
		for j := range aux {
			if !aux[j].Equal(&w.Aux[arity+j]) {
				t.Fatalf("arity %d: trace aux %d differs from the circuit's", arity, j)
			}
		}
		var want fr.Element
		if err := c.Hash(&want, in); err != nil {
			t.Fatal(err)
		}
		if !digest.Equal(&want) || !out.Value.Equal(&want) {
			t.Errorf("arity %d: trace digest differs from Hash", arity)
		}
	}
	c := poseidonForTest(t, 2)
	if _, err := c.WitnessAux(make([]fr.Element, 10), make([]fr.Element, 2)); err == nil {
		t.Error("short aux buffer accepted")
	}
	if _, err := c.WitnessAux(make([]fr.Element, 311), make([]fr.Element, 3)); !errors.Is(err, ErrPoseidonPreimage) {
		t.Errorf("bad preimage: %v", err)
	}
}

// TestPoseidonCircuitCustomTag: a WithDomainTag copy (SnapDeals' Custom(1)) gets its own
// template: the circuit digest follows the tag, and the shared instance is unaffected.
func TestPoseidonCircuitCustomTag(t *testing.T) {
	base := poseidonForTest(t, 2)
	tag, err := PoseidonCustomTag(1)
	if err != nil {
		t.Fatal(err)
	}
	custom := base.WithDomainTag(tag)
	in := poseidonAscending(2)
	for _, c := range []*PoseidonConstants{custom, base} {
		var want fr.Element
		if err := c.Hash(&want, in); err != nil {
			t.Fatal(err)
		}
		chk := r1cs.NewChecker()
		out, err := PoseidonHashCircuit(chk, c, poseidonAllocPreimage(chk, in))
		if err != nil {
			t.Fatal(err)
		}
		if err := chk.Err(); err != nil || !out.Value.Equal(&want) {
			t.Errorf("tag %s: err %v, digest matches %v", c.DomainTag.String(), err, out.Value.Equal(&want))
		}
	}
	var a, b fr.Element
	_ = custom.Hash(&a, in)
	_ = base.Hash(&b, in)
	if a.Equal(&b) {
		t.Error("custom tag does not change the digest")
	}
}

// poseidonNopCS discards everything: it measures the gadget's own cost.
type poseidonNopCS struct{ n int }

func (c *poseidonNopCS) Alloc(fr.Element) r1cs.Variable               { c.n++; return r1cs.Aux(c.n - 1) }
func (c *poseidonNopCS) AllocInput(fr.Element) r1cs.Variable          { return r1cs.One }
func (c *poseidonNopCS) Enforce(string, *r1cs.LC, *r1cs.LC, *r1cs.LC) {}
func (c *poseidonNopCS) Push(string)                                  {}
func (c *poseidonNopCS) Pop()                                         {}

func benchmarkPoseidonCircuit(b *testing.B, arity int) {
	c := poseidonForTest(b, arity)
	cs := &poseidonNopCS{}
	pre := poseidonAllocPreimage(cs, poseidonAscending(arity))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := PoseidonHashCircuit(cs, c, pre); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkPoseidonCircuit2(b *testing.B)  { benchmarkPoseidonCircuit(b, 2) }
func BenchmarkPoseidonCircuit8(b *testing.B)  { benchmarkPoseidonCircuit(b, 8) }
func BenchmarkPoseidonCircuit11(b *testing.B) { benchmarkPoseidonCircuit(b, 11) }

func BenchmarkPoseidonWitnessAux8(b *testing.B) {
	c := poseidonForTest(b, 8)
	in := poseidonAscending(8)
	aux := make([]fr.Element, c.AuxCount())
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.WitnessAux(aux, in); err != nil {
			b.Fatal(err)
		}
	}
}

// TestPoseidonCircuitConcurrent: templates and replay buffers are shared between
// goroutines (run with -race); every goroutine gets the native digest.
func TestPoseidonCircuitConcurrent(t *testing.T) {
	c := poseidonForTest(t, 4).WithDomainTag(PoseidonMerkleTreeTag(4)) // fresh template cache
	errs := make(chan error, 8)
	for g := range 8 {
		go func() {
			in := poseidonRandom(rand.New(rand.NewPCG(uint64(g), 99)), 4)
			var want fr.Element
			if err := c.Hash(&want, in); err != nil {
				errs <- err
				return
			}
			chk := r1cs.NewChecker()
			out, err := PoseidonHashCircuit(chk, c, poseidonAllocPreimage(chk, in))
			switch {
			case err != nil:
				errs <- err
			case chk.Err() != nil:
				errs <- chk.Err()
			case !out.Value.Equal(&want):
				errs <- errors.New("digest differs from native")
			default:
				errs <- nil
			}
		}()
	}
	for range 8 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

// TestPoseidonCircuitAnnotation: the failing row of arity 2 at row 155 is partial round
// 28 (6 first-round rows, 3 × 12 keyed full-round rows, then 4 rows per partial round).
func TestPoseidonCircuitAnnotation(t *testing.T) {
	c := poseidonForTest(t, 2)
	chk := r1cs.NewChecker()
	cs := &poseidonTamperCS{ConstraintSystem: chk, target: 2 + 155}
	if _, err := PoseidonHashCircuit(cs, c, poseidonAllocPreimage(cs, poseidonAscending(2))); err != nil {
		t.Fatal(err)
	}
	var unsat *r1cs.UnsatisfiedError
	if err := chk.Err(); !errors.As(err, &unsat) || !strings.HasPrefix(unsat.Annotation, "partial round 28/") {
		t.Errorf("checker says %v", err)
	}
}
