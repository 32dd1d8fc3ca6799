package gpu

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"testing"
	"unsafe"

	"github.com/consensys/gnark-crypto/ecc"
	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fp"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/snarkpipe/snarkpipe/cuda"
	"github.com/snarkpipe/snarkpipe/prover/backend"
)

// The GPU tests below skip without libsnarkpipe_cuda.so and a device (see testBackend).

func TestFieldOpsMatchGnark(t *testing.T) {
	b := testBackend(t)
	rng := rand.New(rand.NewPCG(1, 2))
	const n = 4096
	fa, fb := make([]fp.Element, n), make([]fp.Element, n)
	ra, rb := make([]fr.Element, n), make([]fr.Element, n)
	for i := range fa {
		fa[i].MustSetRandom()
		fb[i].MustSetRandom()
		ra[i] = randFr(rng)
		rb[i] = randFr(rng)
	}
	// Edge cases: 0, 1, p−1 on both sides.
	var pm1 fp.Element
	pm1.SetOne().Neg(&pm1)
	var rm1 fr.Element
	rm1.SetOne().Neg(&rm1)
	fa[0].SetZero()
	fb[1].SetZero()
	fa[2].SetOne()
	fa[3], fb[3] = pm1, pm1
	fa[4], fb[4] = pm1, fp.One()
	ra[0].SetZero()
	rb[1].SetZero()
	ra[3], rb[3] = rm1, rm1
	ra[4], rb[4] = rm1, fr.One()

	fm, fs, fd := make([]fp.Element, n), make([]fp.Element, n), make([]fp.Element, n)
	rmul, rs, rd := make([]fr.Element, n), make([]fr.Element, n), make([]fr.Element, n)
	err := b.call(func(ctx cuda.Ctx) error {
		if err := b.lib.FieldOps(ctx, true, unsafe.Pointer(&fa[0]), unsafe.Pointer(&fb[0]), n,
			unsafe.Pointer(&fm[0]), unsafe.Pointer(&fs[0]), unsafe.Pointer(&fd[0])); err != nil {
			return err
		}
		return b.lib.FieldOps(ctx, false, unsafe.Pointer(&ra[0]), unsafe.Pointer(&rb[0]), n,
			unsafe.Pointer(&rmul[0]), unsafe.Pointer(&rs[0]), unsafe.Pointer(&rd[0]))
	})
	if err != nil {
		t.Fatal(err)
	}
	bad := 0
	for i := 0; i < n && bad < 5; i++ {
		var m, s, d fp.Element
		m.Mul(&fa[i], &fb[i])
		s.Add(&fa[i], &fb[i])
		d.Sub(&fa[i], &fb[i])
		if m != fm[i] || s != fs[i] || d != fd[i] {
			t.Errorf("Fp %d: a=%v b=%v: mul %v/%v add %v/%v sub %v/%v", i, fa[i], fb[i], fm[i], m, fs[i], s, fd[i], d)
			bad++
		}
		var rm, rsum, rdiff fr.Element
		rm.Mul(&ra[i], &rb[i])
		rsum.Add(&ra[i], &rb[i])
		rdiff.Sub(&ra[i], &rb[i])
		if rm != rmul[i] || rsum != rs[i] || rdiff != rd[i] {
			t.Errorf("Fr %d: mul %v/%v add %v/%v sub %v/%v", i, rmul[i], rm, rs[i], rsum, rd[i], rdiff)
			bad++
		}
	}
}

func g1Equal(a, b *bls.G1Jac) bool { return a.Equal(b) }

func cpuMSMG1(pts []bls.G1Affine, s []fr.Element) bls.G1Jac {
	var r bls.G1Jac
	if len(s) == 0 {
		r.X.SetOne()
		r.Y.SetOne()
		return r
	}
	if _, err := r.MultiExp(pts, s, ecc.MultiExpConfig{}); err != nil {
		panic(err)
	}
	return r
}

func cpuMSMG2(pts []bls.G2Affine, s []fr.Element) bls.G2Jac {
	var r bls.G2Jac
	if len(s) == 0 {
		r.X.SetOne()
		r.Y.SetOne()
		return r
	}
	if _, err := r.MultiExp(pts, s, ecc.MultiExpConfig{}); err != nil {
		panic(err)
	}
	return r
}

// scalarCase builds a scalar vector of one kind. "repeated" is 60 % three values (as a
// Window PoSt witness repeats the values Poseidon derives from its constants alone), the
// rest random: in every window most entries go to three buckets, whose runs cross many
// segments (the chains msm_chain_tree sums).
func scalarCase(rng *rand.Rand, kind string, n int) []fr.Element {
	s := make([]fr.Element, n)
	rep := [3]fr.Element{randFr(rng), randFr(rng), randFr(rng)}
	for i := range s {
		switch kind {
		case "repeated":
			if u := rng.IntN(100); u < 60 {
				s[i] = rep[u%3]
			} else {
				s[i] = randFr(rng)
			}
		case "random":
			s[i] = randFr(rng)
		case "zero":
		case "one":
			s[i].SetOne()
		case "minus-one":
			s[i].SetOne().Neg(&s[i])
		case "filecoin":
			switch u := rng.IntN(100); {
			case u < 45:
			case u < 75:
				s[i].SetOne()
			default:
				s[i] = randFr(rng)
			}
		case "small":
			s[i].SetUint64(uint64(rng.IntN(5)))
		}
	}
	return s
}

func TestMSMG1MatchesGnark(t *testing.T) {
	b := testBackend(t)
	rng := rand.New(rand.NewPCG(3, 4))
	const maxN = 1<<16 + 13
	p1, _ := randPoints(rng, maxN+8)
	p1[5] = bls.G1Affine{} // a point at infinity among the bases
	bases, err := b.LoadG1(p1)
	if err != nil {
		t.Fatal(err)
	}
	defer bases.Close()
	for _, n := range []int{0, 1, 2, 3, 31, 100, 1000, 4097, maxN} {
		for _, kind := range []string{"random", "zero", "one", "minus-one", "filecoin", "small", "repeated"} {
			if n > 5000 && kind != "random" && kind != "filecoin" && kind != "repeated" {
				continue
			}
			s := scalarCase(rng, kind, n)
			for _, offset := range []int{0, 3} {
				got, err := b.MSMG1(bases, offset, s)
				if err != nil {
					t.Fatal(err)
				}
				want := cpuMSMG1(p1[offset:offset+n], s)
				if !got.Equal(&want) {
					t.Errorf("G1 MSM n=%d %s offset=%d: mismatch", n, kind, offset)
				}
			}
		}
	}
}

func TestMSMG1WindowWidths(t *testing.T) {
	b := testBackend(t)
	rng := rand.New(rand.NewPCG(5, 6))
	const n = 5000
	p1, _ := randPoints(rng, n)
	s := scalarCase(rng, "random", n)
	want := cpuMSMG1(p1, s)
	widths := []int{4, 7, 8, 13, 16, 20}
	if testing.Short() {
		widths = widths[:5] // 2^19 buckets per window is slow under the host emulation
	}
	for _, c := range widths {
		t.Run(fmt.Sprint("c=", c), func(t *testing.T) {
			b.window = uint32(c)
			defer func() { b.window = 0 }()
			bases, err := b.LoadG1(p1)
			if err != nil {
				t.Fatal(err)
			}
			defer bases.Close()
			got, err := b.MSMG1(bases, 0, s)
			if err != nil {
				t.Fatal(err)
			}
			if !got.Equal(&want) {
				t.Errorf("window %d: mismatch", c)
			}
		})
	}
}

func TestMSMG2MatchesGnark(t *testing.T) {
	b := testBackend(t)
	rng := rand.New(rand.NewPCG(7, 8))
	const maxN = 5000
	_, p2 := randPoints(rng, maxN)
	p2[2] = bls.G2Affine{}
	bases, err := b.LoadG2(p2)
	if err != nil {
		t.Fatal(err)
	}
	defer bases.Close()
	for _, n := range []int{1, 7, 1000, maxN} {
		for _, kind := range []string{"random", "one", "filecoin", "minus-one", "repeated"} {
			s := scalarCase(rng, kind, n)
			got, err := b.MSMG2(bases, 0, s)
			if err != nil {
				t.Fatal(err)
			}
			want := cpuMSMG2(p2[:n], s)
			if !got.Equal(&want) {
				t.Errorf("G2 MSM n=%d %s: mismatch", n, kind)
			}
		}
	}
}

// TestMSMLargeSplitsAgree checks the multi-batch path (2^25 points: windows processed a
// few at a time) against the sum of 2^20-point MSMs (one batch each), which the tests
// above tie to gnark-crypto. Bases and scalars are made on the device.
func TestMSMLargeSplitsAgree(t *testing.T) {
	if testing.Short() {
		t.Skip("2^25-point MSM: skipped with -short")
	}
	b := testBackend(t)
	const lg, chunkLg = 25, 20
	n := 1 << lg
	var basesPtr, scalarsPtr cuda.DevPtr
	err := b.call(func(ctx cuda.Ctx) error {
		var err error
		if basesPtr, err = b.lib.Alloc(ctx, uint64(n)*g1AffineBytes); err != nil {
			return err
		}
		if scalarsPtr, err = b.lib.Alloc(ctx, uint64(n)*frBytes); err != nil {
			return err
		}
		if err := genG1Bases(b.lib, ctx, basesPtr, uint64(n), 11); err != nil {
			return err
		}
		one := fr.One()
		return b.lib.GenScalars(ctx, scalarsPtr, uint64(n), 99, 100, 100, unsafe.Pointer(&one))
	})
	if err != nil {
		t.Fatal(err)
	}
	defer b.call(func(ctx cuda.Ctx) error { _ = b.lib.Free(ctx, basesPtr); return b.lib.Free(ctx, scalarsPtr) })
	msm := func(off, cnt int) bls.G1Jac {
		var wins [cuda.MaxWindows]g1XYZZ
		var nw, c uint32
		err := b.call(func(ctx cuda.Ctx) error {
			var err error
			nw, c, err = b.lib.MSM(ctx, false, basesPtr+cuda.DevPtr(off*g1AffineBytes), scalarsPtr+cuda.DevPtr(off*frBytes),
				uint64(cnt), 0, unsafe.Pointer(&wins[0]))
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return combineG1(wins[:nw], c)
	}
	whole := msm(0, n)
	var sum bls.G1Jac
	sum.X.SetOne()
	sum.Y.SetOne()
	for off := 0; off < n; off += 1 << chunkLg {
		part := msm(off, 1<<chunkLg)
		sum.AddAssign(&part)
	}
	if !whole.Equal(&sum) {
		t.Fatal("2^25 MSM differs from the sum of its 2^20 chunks")
	}
}

func TestGenBasesMatchHost(t *testing.T) {
	b := testBackend(t)
	const n = 3000
	a, bb := benchTablesG1(6)
	out := make([]bls.G1Affine, n)
	err := b.call(func(ctx cuda.Ctx) error {
		p, err := b.lib.Alloc(ctx, n*g1AffineBytes)
		if err != nil {
			return err
		}
		defer b.lib.Free(ctx, p)
		if err := b.lib.GenBases(ctx, false, p, n, unsafe.Pointer(&a[0]), 6, unsafe.Pointer(&bb[0]), uint64(len(bb))); err != nil {
			return err
		}
		return b.lib.Download(ctx, unsafe.Pointer(&out[0]), p, n*g1AffineBytes)
	})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n; i++ {
		var want bls.G1Affine
		want.Add(&a[i&63], &bb[i>>6])
		if !want.Equal(&out[i]) {
			t.Fatalf("base %d: got %v want %v", i, out[i], want)
		}
	}
}

func randBitmap(rng *rand.Rand, n int, density float64) []uint64 {
	bm := make([]uint64, (n+63)/64+1)
	for i := 0; i < n+64; i++ { // bits past n are set too: they must be ignored
		if rng.Float64() < density {
			bm[i/64] |= 1 << (i % 64)
		}
	}
	return bm
}

func TestBatchAddMatchesNaive(t *testing.T) {
	b := testBackend(t)
	rng := rand.New(rand.NewPCG(9, 10))
	const maxN = 100000
	p1, p2 := randPoints(rng, maxN+64)
	p1[7] = bls.G1Affine{}
	g1b, err := b.LoadG1(p1)
	if err != nil {
		t.Fatal(err)
	}
	defer g1b.Close()
	g2b, err := b.LoadG2(p2[:5000])
	if err != nil {
		t.Fatal(err)
	}
	defer g2b.Close()
	for _, n := range []int{0, 1, 31, 32, 33, 63, 64, 65, 1000, maxN} {
		for _, density := range []float64{0, 0.5, 1} {
			bm := randBitmap(rng, n, density)
			for _, offset := range []int{0, 5} {
				got, err := b.BatchAddG1(g1b, offset, bm, n)
				if err != nil {
					t.Fatal(err)
				}
				var want bls.G1Jac
				want.X.SetOne()
				want.Y.SetOne()
				for i := 0; i < n; i++ {
					if bm[i/64]>>(i%64)&1 == 1 {
						want.AddMixed(&p1[offset+i])
					}
				}
				if !got.Equal(&want) {
					t.Errorf("G1 batch add n=%d density=%v offset=%d: mismatch", n, density, offset)
				}
				if n > 4000 {
					continue
				}
				got2, err := b.BatchAddG2(g2b, offset, bm, n)
				if err != nil {
					t.Fatal(err)
				}
				var want2 bls.G2Jac
				want2.X.SetOne()
				want2.Y.SetOne()
				for i := 0; i < n; i++ {
					if bm[i/64]>>(i%64)&1 == 1 {
						want2.AddMixed(&p2[offset+i])
					}
				}
				if !got2.Equal(&want2) {
					t.Errorf("G2 batch add n=%d density=%v offset=%d: mismatch", n, density, offset)
				}
			}
		}
	}
}

func TestRangeAndClosedErrors(t *testing.T) {
	b := testBackend(t)
	rng := rand.New(rand.NewPCG(11, 12))
	p1, _ := randPoints(rng, 10)
	bases, err := b.LoadG1(p1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.MSMG1(bases, 5, make([]fr.Element, 6)); err == nil {
		t.Error("MSM past the end of the bases: no error")
	}
	if _, err := b.BatchAddG1(bases, 0, []uint64{1}, 65); err == nil {
		t.Error("bitmap too short: no error")
	}
	if err := bases.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := b.MSMG1(bases, 0, make([]fr.Element, 1)); err == nil {
		t.Error("MSM on closed bases: no error")
	}
}

// msmTuning* are the tuning bits of the library's window_bits argument (cuda/msm.cuh,
// MsmTuning), used by the benchmark's comparison rows.
const (
	msmTuneInlineMul = 1 << 8
	msmTunePrefetch  = 1 << 9
)

func msmTuneOccupancy(o int) uint32 { return uint32(o) << 10 }

// msmTunePairRounds asks for r batch-affine pair rounds (0: XYZZ accumulation only).
func msmTunePairRounds(r int) uint32 { return uint32(r+1) << 20 }

// msmTuneBatchLog caps the sorted entries per batch of windows at 2^l.
func msmTuneBatchLog(l int) uint32 { return uint32(l) << 24 }

// msmTuneFailPairs makes the pair rounds' scratch allocation fail as on a full device.
const msmTuneFailPairs = 1 << 29

// msmTuneCanonPerBatch converts the scalars from Montgomery form once per batch of
// windows instead of once per MSM.
const msmTuneCanonPerBatch = 1 << 30

func msmTuneReduceLog(l int) uint32  { return uint32(l) << 12 }
func msmTuneSegmentLog(l int) uint32 { return uint32(l) << 16 }

// loadBases loads p1 and p2 as device bases, closed when the test ends.
func loadBases(t *testing.T, b *Backend, p1 []bls.G1Affine, p2 []bls.G2Affine) (backend.G1Bases, backend.G2Bases) {
	t.Helper()
	g1b, err := b.LoadG1(p1)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = g1b.Close() })
	g2b, err := b.LoadG2(p2)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = g2b.Close() })
	return g1b, g2b
}

// expectMSMs runs the G1 and G2 MSMs of s with b's current window_bits and checks them
// against want1 and want2 (label names the case).
func expectMSMs(t *testing.T, b *Backend, g1b backend.G1Bases, g2b backend.G2Bases, s []fr.Element, want1 *bls.G1Jac, want2 *bls.G2Jac, label string) {
	t.Helper()
	got1, err := b.MSMG1(g1b, 0, s)
	if err != nil {
		t.Fatalf("G1 %s: %v", label, err)
	}
	if !got1.Equal(want1) {
		t.Errorf("G1 %s: mismatch", label)
	}
	got2, err := b.MSMG2(g2b, 0, s)
	if err != nil {
		t.Fatalf("G2 %s: %v", label, err)
	}
	if !got2.Equal(want2) {
		t.Errorf("G2 %s: mismatch", label)
	}
}

// TestMSMTuningVariantsAgree runs every accumulation and reduction variant the benchmark
// compares against gnark-crypto (random and Filecoin-like scalars, forced and automatic
// windows).
func TestMSMTuningVariantsAgree(t *testing.T) {
	b := testBackend(t)
	rng := rand.New(rand.NewPCG(9, 10))
	const n = 3000
	p1, p2 := randPoints(rng, n)
	g1b, g2b := loadBases(t, b, p1, p2)
	tunings := []uint32{
		msmTuneInlineMul, msmTunePrefetch, msmTuneInlineMul | msmTunePrefetch,
		8 | msmTuneReduceLog(2), 8 | msmTuneReduceLog(7), 9 | msmTuneSegmentLog(3) | msmTunePrefetch,
		msmTuneOccupancy(1), msmTuneOccupancy(2), msmTuneOccupancy(3), 8 | msmTuneOccupancy(3) | msmTuneReduceLog(2),
		msmTuneCanonPerBatch, 6 | msmTuneCanonPerBatch | msmTuneBatchLog(12), 6 | msmTuneBatchLog(12), // one batch, then a window per batch
	}
	defer func() { b.window = 0 }()
	for _, kind := range []string{"random", "filecoin", "repeated"} {
		s := scalarCase(rng, kind, n)
		want1, want2 := cpuMSMG1(p1, s), cpuMSMG2(p2, s)
		for _, tu := range tunings {
			b.window = tu
			expectMSMs(t, b, g1b, g2b, s, &want1, &want2, fmt.Sprintf("%s tuning %#x", kind, tu))
		}
	}
	b.window = 1 << 31 // not a tuning bit
	if _, err := b.MSMG1(g1b, 0, scalarCase(rng, "random", 10)); err == nil {
		t.Error("unknown tuning bits accepted")
	}
	b.window = msmTuneOccupancy(2) | msmTuneInlineMul // the bounded kernels have no inlined variant
	if _, err := b.MSMG1(g1b, 0, scalarCase(rng, "random", 10)); err == nil {
		t.Error("occupancy variant with inlined products accepted")
	}
}

// TestMSMPairRoundsSpecialCases drives the batch-affine pair rounds through every case
// of an affine sum: repeated bases (P + P, a doubling), opposite bases (P + (−P) = ∞),
// points at infinity, and a point with x = 0 is not needed (none is in the group). Equal
// scalars put every base of a window into one bucket, so the runs are long and every
// round pairs sums of sums; the round counts cover odd and even buffer parities and more
// rounds than the runs need.
func TestMSMPairRoundsSpecialCases(t *testing.T) {
	b := testBackend(t)
	rng := rand.New(rand.NewPCG(11, 12))
	r1, r2 := randPoints(rng, 3)
	const n = 203
	p1 := make([]bls.G1Affine, n)
	p2 := make([]bls.G2Affine, n)
	for i := range p1 {
		switch i % 6 {
		case 0, 1, 4: // P, P, ..., P: doublings
			p1[i], p2[i] = r1[0], r2[0]
		case 2: // −P
			p1[i].Neg(&r1[0])
			p2[i].Neg(&r2[0])
		case 3: // ∞
		case 5:
			p1[i], p2[i] = r1[1+i%2], r2[1+i%2]
		}
	}
	g1b, g2b := loadBases(t, b, p1, p2)
	equal := make([]fr.Element, n)
	s := randFr(rng)
	for i := range equal {
		equal[i] = s
	}
	cases := map[string][]fr.Element{
		"equal":  equal,
		"small":  scalarCase(rng, "small", n),
		"random": scalarCase(rng, "random", n),
	}
	defer func() { b.window = 0 }()
	start := msmStats(t, b)
	for name, sc := range cases {
		want1, want2 := cpuMSMG1(p1, sc), cpuMSMG2(p2, sc)
		for _, rounds := range []int{0, 1, 2, 3, 4, 9} {
			b.window = 6 | msmTunePairRounds(rounds)
			expectMSMs(t, b, g1b, g2b, sc, &want1, &want2, fmt.Sprintf("%s scalars, %d pair rounds", name, rounds))
		}
	}
	b.window = msmTunePairRounds(2) | msmTunePrefetch
	if _, err := b.MSMG1(g1b, 0, equal); err == nil {
		t.Error("pair rounds with the prefetching accumulation accepted")
	}
	// No room for the rounds' scratch: the MSM runs without them, same result, and the
	// context counts the two MSMs (G1 and G2) that dropped them.
	sc := cases["random"]
	want1, want2 := cpuMSMG1(p1, sc), cpuMSMG2(p2, sc)
	before := msmStats(t, b)
	// (The host emulation reports no device memory: never batches of 2^28.)
	if before.RoundsDropped != start.RoundsDropped || before.Calls == start.Calls || (*gpuEmu && before.WideBatches != start.WideBatches) {
		t.Errorf("MSM counters with room for the rounds: %+v, then %+v", start, before)
	}
	b.window = msmTunePairRounds(3) | msmTuneFailPairs
	expectMSMs(t, b, g1b, g2b, sc, &want1, &want2, "without room for the pair rounds")
	if after := msmStats(t, b); after.RoundsDropped-before.RoundsDropped != 2 || after.Calls-before.Calls != 2 {
		t.Errorf("MSM counters without room for the rounds: %+v, then %+v (want 2 calls, 2 dropped)", before, after)
	}
}

// msmStats reads the MSM counters of the backend's main context.
func msmStats(t *testing.T, b *Backend) cuda.MSMStats {
	t.Helper()
	var s cuda.MSMStats
	err := b.call(func(ctx cuda.Ctx) (err error) {
		s, err = b.lib.MSMStats(ctx)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestMSMWindowBatches splits the windows into many batches (one window each) and checks
// the signed digits' carry into a batch's first window, which is recomputed there from
// the lower windows: scalars whose windows hold exactly half (2^(c−1)) carry only when a
// lower window does, so the look-back crosses several windows.
func TestMSMWindowBatches(t *testing.T) {
	b := testBackend(t)
	rng := rand.New(rand.NewPCG(13, 14))
	const n, c = 150, 6
	p1, p2 := randPoints(rng, n)
	g1b, g2b := loadBases(t, b, p1, p2)
	s := scalarCase(rng, "random", n)
	for i := 0; i < 40; i++ {
		// windows 1..k hold 100000b; window 0 holds 33 (> half: carries) or 31 (does not).
		var v big.Int
		low := int64(31 + 2*(i%2))
		v.SetInt64(low)
		for w := 1; w <= 1+i%12; w++ {
			v.Add(&v, new(big.Int).Lsh(big.NewInt(32), uint(c*w)))
		}
		s[i].SetBigInt(&v)
	}
	want1, want2 := cpuMSMG1(p1, s), cpuMSMG2(p2, s)
	defer func() { b.window = 0 }()
	for _, rounds := range []int{0, 3} {
		b.window = c | msmTunePairRounds(rounds) | msmTuneBatchLog(7) // 2^7 < n entries: one window per batch
		expectMSMs(t, b, g1b, g2b, s, &want1, &want2, fmt.Sprintf("%d pair rounds, one window per batch", rounds))
	}
}
