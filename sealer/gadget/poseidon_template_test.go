package gadget

import (
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/snarkpipe/snarkpipe/prover/r1cs"
)

// TestPoseidonTemplateRecorderRejects: the replay assumes each row follows exactly one
// allocation and defines it with coefficient 1 in C; the recorder must refuse anything
// else rather than record a template that would replay wrongly.
func TestPoseidonTemplateRecorderRejects(t *testing.T) {
	two := fr.NewElement(2)
	cases := map[string]func(r *poseidonTemplateRecorder){
		"row without allocation": func(r *poseidonTemplateRecorder) {
			r.Enforce("x", &r1cs.LC{}, &r1cs.LC{}, &r1cs.LC{})
		},
		"two allocations": func(r *poseidonTemplateRecorder) {
			r.Alloc(fr.Element{})
			v := r.Alloc(fr.Element{})
			c := r1cs.LC{{Var: v, Coeff: r1cs.CoeffOne()}}
			r.Enforce("x", &r1cs.LC{}, &r1cs.LC{}, &c)
		},
		"coefficient 2": func(r *poseidonTemplateRecorder) {
			v := r.Alloc(fr.Element{})
			c := r1cs.LC{{Var: v, Coeff: two}}
			r.Enforce("x", &r1cs.LC{}, &r1cs.LC{}, &c)
		},
		"own variable in A": func(r *poseidonTemplateRecorder) {
			v := r.Alloc(fr.Element{})
			lc := r1cs.LC{{Var: v, Coeff: r1cs.CoeffOne()}}
			c := lc
			r.Enforce("x", &lc, &r1cs.LC{}, &c)
		},
		"input allocation": func(r *poseidonTemplateRecorder) { r.AllocInput(fr.Element{}) },
	}
	for name, f := range cases {
		r := &poseidonTemplateRecorder{tmpl: &poseidonTemplate{}}
		f(r)
		if r.err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	// The well-formed pattern is accepted.
	r := &poseidonTemplateRecorder{tmpl: &poseidonTemplate{}}
	v := r.Alloc(fr.Element{})
	a := r1cs.LC{{Var: r1cs.Input(1), Coeff: r1cs.CoeffOne()}}
	c := r1cs.LC{{Var: v, Coeff: r1cs.CoeffOne()}, {Var: r1cs.One, Coeff: two}}
	r.Enforce("x", &a, &a, &c)
	if r.err != nil || len(r.tmpl.rows) != 1 || len(r.tmpl.rows[0].cRest) != 1 {
		t.Errorf("well-formed row: err %v, rows %+v", r.err, r.tmpl.rows)
	}
}

func TestPoseidonTemplateUnbuiltConstants(t *testing.T) {
	if _, err := PoseidonHashCircuit(&poseidonNopCS{}, &PoseidonConstants{Arity: 0}, nil); err == nil {
		t.Error("constants not built by PoseidonFor accepted")
	}
}
