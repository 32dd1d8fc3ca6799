package gpu

import (
	"errors"
	"math/big"
	"math/rand/v2"
	"testing"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fp"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/snarkpipe/snarkpipe/cuda"
)

// CPU-only tests of the host side: XYZZ conversion, window combination, configuration.

func toXYZZG1(p *bls.G1Affine, z *fp.Element) g1XYZZ {
	var r g1XYZZ
	r.ZZ.Square(z)
	r.ZZZ.Mul(&r.ZZ, z)
	r.X.Mul(&p.X, &r.ZZ)
	r.Y.Mul(&p.Y, &r.ZZZ)
	return r
}

func toXYZZG2(p *bls.G2Affine, z *bls.E2) g2XYZZ {
	var r g2XYZZ
	r.ZZ.Square(z)
	r.ZZZ.Mul(&r.ZZ, z)
	r.X.Mul(&p.X, &r.ZZ)
	r.Y.Mul(&p.Y, &r.ZZZ)
	return r
}

func TestXYZZToJacobian(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	p1, p2 := randPoints(rng, 8)
	for i := range p1 {
		var z fp.Element
		z.MustSetRandom()
		x := toXYZZG1(&p1[i], &z)
		j := x.jac()
		var got bls.G1Affine
		got.FromJacobian(&j)
		if !got.Equal(&p1[i]) {
			t.Fatalf("G1 point %d: XYZZ round trip differs", i)
		}
		var z2 bls.E2
		z2.MustSetRandom()
		x2 := toXYZZG2(&p2[i], &z2)
		j2 := x2.jac()
		var got2 bls.G2Affine
		got2.FromJacobian(&j2)
		if !got2.Equal(&p2[i]) {
			t.Fatalf("G2 point %d: XYZZ round trip differs", i)
		}
	}
	var inf g1XYZZ
	if j := inf.jac(); !j.Z.IsZero() {
		t.Fatal("G1 XYZZ infinity does not convert to Jacobian infinity")
	}
	var inf2 g2XYZZ
	if j := inf2.jac(); !j.Z.IsZero() {
		t.Fatal("G2 XYZZ infinity does not convert to Jacobian infinity")
	}
}

func TestCombineWindows(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 2))
	p1, p2 := randPoints(rng, 5)
	const c = 13
	wins := make([]g1XYZZ, 5)
	wins2 := make([]g2XYZZ, 5)
	var want bls.G1Jac
	var want2 bls.G2Jac
	want.X.SetOne()
	want.Y.SetOne()
	want2.X.SetOne()
	want2.Y.SetOne()
	for w := range wins {
		var z fp.Element
		z.SetUint64(uint64(w + 2))
		wins[w] = toXYZZG1(&p1[w], &z)
		var z2 bls.E2
		z2.A0.SetUint64(uint64(w + 3))
		wins2[w] = toXYZZG2(&p2[w], &z2)
		k := new(big.Int).Lsh(big.NewInt(1), uint(w*c))
		var t1 bls.G1Jac
		t1.FromAffine(&p1[w])
		t1.ScalarMultiplication(&t1, k)
		want.AddAssign(&t1)
		var t2 bls.G2Jac
		t2.FromAffine(&p2[w])
		t2.ScalarMultiplication(&t2, k)
		want2.AddAssign(&t2)
	}
	wins[2] = g1XYZZ{} // a window at infinity
	var t1 bls.G1Jac
	t1.FromAffine(&p1[2])
	t1.ScalarMultiplication(&t1, new(big.Int).Lsh(big.NewInt(1), 2*c))
	want.SubAssign(&t1)
	if got := combineG1(wins, c); !got.Equal(&want) {
		t.Fatal("combineG1 != Σ 2^(wc)·W_w")
	}
	if got := combineG2(wins2, c); !got.Equal(&want2) {
		t.Fatal("combineG2 != Σ 2^(wc)·W_w")
	}
}

func TestNaiveMSMHelperAgreesWithGnark(t *testing.T) {
	// The test oracle itself: gnark's MultiExp against the naive sum.
	rng := rand.New(rand.NewPCG(3, 3))
	p1, _ := randPoints(rng, 40)
	s := randScalars(rng, 40)
	s[3].SetZero()
	s[4].SetOne()
	got := cpuMSMG1(p1, s)
	want := naiveMSMG1(p1, s)
	if !got.Equal(&want) {
		t.Fatal("gnark MultiExp differs from the naive sum")
	}
}

func TestConfigValidate(t *testing.T) {
	for _, c := range []Config{{Device: -1}, {WindowBits: 3}, {WindowBits: 25},
		{StreamPlan: []float64{0}}, {StreamPlan: []float64{1}}, {StreamPlan: []float64{0.5, 0.5}}, {StreamPlan: []float64{0.6, 0.2}}} {
		if c.Validate() == nil {
			t.Errorf("%+v: Validate accepted it", c)
		}
	}
	if err := (Config{StreamPlan: []float64{0.1, 0.4, 0.9}}).Validate(); err != nil {
		t.Errorf("a valid stream plan refused: %v", err)
	}
	if err := DefaultConfig().Validate(); err != nil {
		t.Fatal(err)
	}
	if err := DefaultBenchConfig().Validate(); err != nil {
		t.Fatal(err)
	}
	bad := DefaultBenchConfig()
	bad.NTTMaxLog = 29
	if bad.Validate() == nil {
		t.Error("NTT 2^29 accepted")
	}
}

func TestNewWithoutLibraryIsErrNoCUDA(t *testing.T) {
	_, err := New(Config{LibPath: t.TempDir() + "/" + cuda.LibName})
	if !errors.Is(err, cuda.ErrNoCUDA) {
		t.Fatalf("New without library = %v, want ErrNoCUDA", err)
	}
}

func TestQuotientConsts(t *testing.T) {
	k := newQuotientConsts(1 << 10)
	var x fr.Element
	x.Mul(&k[0], &k[1])
	if !x.IsOne() {
		t.Error("ω·ω⁻¹ != 1")
	}
	x.Mul(&k[2], &k[3])
	if !x.IsOne() {
		t.Error("g·g⁻¹ != 1")
	}
	var seven fr.Element
	seven.SetUint64(7)
	if k[2] != seven {
		t.Error("coset shift is not 7")
	}
	x.Exp(k[0], big.NewInt(1<<10))
	if !x.IsOne() {
		t.Error("ω^m != 1")
	}
	x.Exp(k[0], big.NewInt(1<<9))
	if x.IsOne() {
		t.Error("ω is not primitive")
	}
}
