package gpu

import (
	"fmt"
	"io"
	"math/big"
	"math/rand/v2"
	"slices"
	"time"
	"unsafe"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr/fft"
	"github.com/snarkpipe/snarkpipe/cuda"
)

// BenchConfig sets what Bench measures; sizes are log2 of the number of points.
type BenchConfig struct {
	Device  int
	LibPath string
	// Arith is the NTTs' Fr product ("" or auto: chosen from the device, as New does).
	Arith Arith

	G1MinLog, G1MaxLog   int
	G2MinLog, G2MaxLog   int
	NTTMinLog, NTTMaxLog int
	BatchLog             int
	// Repeats is the number of timed runs per row (after one warm-up); the median is shown.
	Repeats int
	// WindowSweep adds rows for the largest random G1 MSM with these forced window widths.
	WindowSweep []int
	// NTTTileSweep adds rows for the largest forward NTT with these tile sizes (log2).
	NTTTileSweep []int
	// NTTLegacy adds rows for the largest forward and coset NTT with the legacy kernel.
	NTTLegacy bool
	// G1Tunings and G2Tunings add rows for the largest random MSM with these window_bits
	// values (window width and tuning bits, cuda/msm.cuh MsmTuning).
	G1Tunings, G2Tunings []uint32
}

// DefaultBenchConfig is the table: G1 2^20..2^27, G2 2^20..2^25, NTT 2^20..2^27,
// batch addition over 2^27 bases.
func DefaultBenchConfig() BenchConfig {
	return BenchConfig{G1MinLog: 20, G1MaxLog: 27, G2MinLog: 20, G2MaxLog: 25, NTTMinLog: 20, NTTMaxLog: 27,
		BatchLog: 27, Repeats: 3}
}

// Validate checks the sizes.
func (c BenchConfig) Validate() error {
	for _, r := range [][3]int{{c.G1MinLog, c.G1MaxLog, 30}, {c.G2MinLog, c.G2MaxLog, 30}, {c.NTTMinLog, c.NTTMaxLog, 28}} {
		if r[0] < 0 || r[1] < r[0] || r[1] > r[2] {
			return fmt.Errorf("gpu bench: size range 2^%d..2^%d invalid (max 2^%d)", r[0], r[1], r[2])
		}
	}
	if c.BatchLog < 0 || c.BatchLog > 30 {
		return fmt.Errorf("gpu bench: batch size 2^%d invalid", c.BatchLog)
	}
	if c.Repeats < 1 {
		return fmt.Errorf("gpu bench: Repeats %d < 1", c.Repeats)
	}
	return nil
}

// nttLegacy in cuda.Lib.NTTTile's tileLog selects the legacy NTT kernel (one butterfly
// per thread per stage; cuda/fr.cu kNttFlagLegacy), kept for comparison rows and tests.
const nttLegacy = 0x20

// nttNoDirect in NTTTile's tileLog makes every pass compute its twiddles from two tables
// (cuda/fr.cu kNttFlagNoDirect), for comparison rows.
const nttNoDirect = 0x40

// nttBounded in NTTTile's tileLog selects the NTT kernel capped at 128 registers
// (cuda/fr.cu kNttFlagBounded), for comparison rows.
const nttBounded = 0x80

const benchTableLog = 14 // bases are A[i mod 2^14] + B[i >> 14]

// benchTablesG1 returns A[j] = (j+1)·G (2^lgA points) and B[k] = k·Q (2^13 points) for a
// fixed Q: every A[j] + B[k] is distinct, so A[i mod 2^lgA] + B[i >> lgA] are distinct bases.
func benchTablesG1(lgA int) ([]bls.G1Affine, []bls.G1Affine) {
	_, _, g, _ := bls.Generators()
	var q bls.G1Affine
	q.ScalarMultiplication(&g, big.NewInt(0x5eed1234567))
	a := make([]bls.G1Jac, 1<<lgA)
	b := make([]bls.G1Jac, 1<<13)
	var acc bls.G1Jac
	acc.FromAffine(&g)
	for j := range a {
		a[j] = acc
		acc.AddMixed(&g)
	}
	acc.X.SetOne()
	acc.Y.SetOne()
	acc.Z.SetZero()
	for k := range b {
		b[k] = acc
		acc.AddMixed(&q)
	}
	return bls.BatchJacobianToAffineG1(a), bls.BatchJacobianToAffineG1(b)
}

func benchTablesG2(lgA int) ([]bls.G2Affine, []bls.G2Affine) {
	_, _, _, g := bls.Generators()
	var q bls.G2Affine
	q.ScalarMultiplication(&g, big.NewInt(0x5eed1234567))
	a := make([]bls.G2Jac, 1<<lgA)
	b := make([]bls.G2Jac, 1<<13)
	var acc bls.G2Jac
	acc.FromAffine(&g)
	for j := range a {
		a[j] = acc
		acc.AddMixed(&g)
	}
	acc.X.SetOne()
	acc.Y.SetOne()
	acc.Z.SetZero()
	for k := range b {
		b[k] = acc
		acc.AddMixed(&q)
	}
	return batchToAffineG2(a), batchToAffineG2(b)
}

// batchToAffineG2 converts Jacobian points to affine with one inversion (Montgomery's
// trick); gnark-crypto has this for G1 only.
func batchToAffineG2(pts []bls.G2Jac) []bls.G2Affine {
	out := make([]bls.G2Affine, len(pts))
	prefix := make([]bls.E2, len(pts))
	var acc bls.E2
	acc.SetOne()
	for i := range pts {
		if !pts[i].Z.IsZero() {
			acc.Mul(&acc, &pts[i].Z)
		}
		prefix[i] = acc
	}
	var inv bls.E2
	inv.Inverse(&acc)
	for i := len(pts) - 1; i >= 0; i-- {
		if pts[i].Z.IsZero() {
			continue // (0, 0) is infinity
		}
		var zinv, zinv2 bls.E2
		if i > 0 {
			zinv.Mul(&inv, &prefix[i-1])
		} else {
			zinv = inv
		}
		inv.Mul(&inv, &pts[i].Z)
		zinv2.Square(&zinv)
		out[i].X.Mul(&pts[i].X, &zinv2)
		out[i].Y.Mul(&pts[i].Y, &zinv2).Mul(&out[i].Y, &zinv)
	}
	return out
}

// genG1Bases writes n distinct bases to dst on the device (n <= 2^27).
func genG1Bases(lib *cuda.Lib, ctx cuda.Ctx, dst cuda.DevPtr, n uint64, _ uint64) error {
	a, b := benchTablesG1(benchTableLog)
	if n > uint64(len(b))<<benchTableLog {
		return fmt.Errorf("gpu bench: at most 2^27 generated bases")
	}
	return lib.GenBases(ctx, false, dst, n, unsafe.Pointer(&a[0]), benchTableLog, unsafe.Pointer(&b[0]), uint64(len(b)))
}

func genG2Bases(lib *cuda.Lib, ctx cuda.Ctx, dst cuda.DevPtr, n uint64) error {
	a, b := benchTablesG2(benchTableLog)
	if n > uint64(len(b))<<benchTableLog {
		return fmt.Errorf("gpu bench: at most 2^27 generated bases")
	}
	return lib.GenBases(ctx, true, dst, n, unsafe.Pointer(&a[0]), benchTableLog, unsafe.Pointer(&b[0]), uint64(len(b)))
}

// benchTimer runs f once to warm up, then repeats times, and returns the median duration.
func benchTimer(repeats int, f func() error) (time.Duration, error) {
	if err := f(); err != nil {
		return 0, err
	}
	ds := make([]time.Duration, repeats)
	for i := range ds {
		t0 := time.Now()
		if err := f(); err != nil {
			return 0, err
		}
		ds[i] = time.Since(t0)
	}
	slices.Sort(ds)
	return ds[len(ds)/2], nil
}

// msmRow times one MSM row and notes the calls (warm-up included) that ran without their
// pair rounds or with 2^28-entry batches (the context's MSM counters).
func msmRow(w io.Writer, lib *cuda.Lib, ctx cuda.Ctx, name string, lg, repeats int, run func() error) error {
	before, statsErr := lib.MSMStats(ctx)
	d, err := benchTimer(repeats, run)
	if err != nil {
		return err
	}
	benchRow(w, name, lg, d)
	after, err := lib.MSMStats(ctx)
	if statsErr != nil || err != nil {
		return nil // a library without the counters
	}
	if dropped, wide := after.RoundsDropped-before.RoundsDropped, after.WideBatches-before.WideBatches; dropped > 0 || wide > 0 {
		fmt.Fprintf(w, "  (of %d calls: %d without pair rounds, their scratch did not fit; %d with 2^28-entry batches)\n",
			after.Calls-before.Calls, dropped, wide)
	}
	return nil
}

func benchRow(w io.Writer, name string, lg int, d time.Duration) {
	ms := float64(d.Nanoseconds()) / 1e6
	fmt.Fprintf(w, "%-26s 2^%-2d %11.2f ms %9.2f ns/pt\n", name, lg, ms, float64(d.Nanoseconds())/float64(uint64(1)<<lg))
}

// Bench measures the kernels on one device and prints one row per operation and size:
// median wall time of a synchronous library call (device data resident, no host copies
// except the bitmap of the batch addition) and ns per point.
func Bench(w io.Writer, cfg BenchConfig) error {
	if err := cfg.Validate(); err != nil {
		return err
	}
	lib, err := cuda.Load(cfg.LibPath)
	if err != nil {
		return err
	}
	info, err := lib.Device(cfg.Device)
	if err != nil {
		return err
	}
	props, probed, err := probe(lib, cfg.Device)
	if err != nil {
		return err
	}
	want, err := ParseArith(string(cfg.Arith))
	if err != nil {
		return err
	}
	arith := chooseArith(props, probed, want)
	ctx, err := lib.NewCtx(cfg.Device)
	if err != nil {
		return err
	}
	defer lib.FreeCtx(ctx)
	if err := lib.SetArith(ctx, arith.Arith); err != nil {
		return err
	}
	r := DeviceReport{Name: info.Name, Props: props, Probed: probed, Build: lib.BuildInfo(), Arith: arith}
	if r.Props.TotalMem == 0 {
		r.Props.TotalMem = int64(info.TotalMem)
	}
	fmt.Fprintf(w, "device %d: %s; library %s; median of %d runs after 1 warm-up\n", cfg.Device, r.Summary(), r.Build, cfg.Repeats)
	if err := benchG1(w, lib, ctx, cfg); err != nil {
		return err
	}
	if err := benchG2(w, lib, ctx, cfg); err != nil {
		return err
	}
	return benchNTT(w, lib, ctx, cfg)
}

// allocs tracks device buffers of one bench section.
type allocs struct {
	lib  *cuda.Lib
	ctx  cuda.Ctx
	ptrs []cuda.DevPtr
}

func (a *allocs) alloc(bytes uint64) (cuda.DevPtr, error) {
	p, err := a.lib.Alloc(a.ctx, bytes)
	if err == nil {
		a.ptrs = append(a.ptrs, p)
	}
	return p, err
}

func (a *allocs) free() {
	for _, p := range a.ptrs {
		_ = a.lib.Free(a.ctx, p)
	}
	_ = a.lib.Trim(a.ctx)
}

func benchG1(w io.Writer, lib *cuda.Lib, ctx cuda.Ctx, cfg BenchConfig) error {
	al := &allocs{lib: lib, ctx: ctx}
	defer al.free()
	nb := uint64(1) << max(cfg.G1MaxLog, cfg.BatchLog)
	ns := uint64(1) << cfg.G1MaxLog
	bases, err := al.alloc(nb * g1AffineBytes)
	if err != nil {
		return err
	}
	t0 := time.Now()
	if err := genG1Bases(lib, ctx, bases, nb, 0); err != nil {
		return err
	}
	fmt.Fprintf(w, "generated %d G1 bases on the device in %v\n", nb, time.Since(t0).Round(time.Millisecond))
	one := fr.One()
	random, err := al.alloc(ns * frBytes)
	if err != nil {
		return err
	}
	fil, err := al.alloc(ns * frBytes)
	if err != nil {
		return err
	}
	if err := lib.GenScalars(ctx, random, ns, 1, 0, 0, unsafe.Pointer(&one)); err != nil {
		return err
	}
	if err := lib.GenScalars(ctx, fil, ns, 2, 450, 300, unsafe.Pointer(&one)); err != nil {
		return err
	}
	var wins [cuda.MaxWindows]g1XYZZ
	for lg := cfg.G1MinLog; lg <= cfg.G1MaxLog; lg++ {
		for _, v := range []struct {
			name    string
			scalars cuda.DevPtr
		}{{"g1_msm_random", random}, {"g1_msm_filecoin_45z_30o", fil}} {
			err := msmRow(w, lib, ctx, v.name, lg, cfg.Repeats, func() error {
				_, _, err := lib.MSM(ctx, false, bases, v.scalars, uint64(1)<<lg, 0, unsafe.Pointer(&wins[0]))
				return err
			})
			if err != nil {
				return err
			}
		}
	}
	for _, c := range cfg.WindowSweep {
		err := msmRow(w, lib, ctx, fmt.Sprintf("g1_msm_random_c%d", c), cfg.G1MaxLog, cfg.Repeats, func() error {
			_, _, err := lib.MSM(ctx, false, bases, random, ns, uint32(c), unsafe.Pointer(&wins[0]))
			return err
		})
		if err != nil {
			return err
		}
	}
	for _, tu := range cfg.G1Tunings {
		for _, v := range []struct {
			name    string
			scalars cuda.DevPtr
		}{{"g1_msm_random", random}, {"g1_msm_filecoin", fil}} {
			err := msmRow(w, lib, ctx, fmt.Sprintf("%s_t%#x", v.name, tu), cfg.G1MaxLog, cfg.Repeats, func() error {
				_, _, err := lib.MSM(ctx, false, bases, v.scalars, ns, tu, unsafe.Pointer(&wins[0]))
				return err
			})
			if err != nil {
				return err
			}
		}
	}
	// Batch addition over 2^BatchLog bases, half the bits set.
	rng := rand.New(rand.NewPCG(3, 4))
	bm := make([]uint64, (uint64(1)<<cfg.BatchLog+63)/64)
	for i := range bm {
		bm[i] = rng.Uint64()
	}
	var out g1XYZZ
	d, err := benchTimer(cfg.Repeats, func() error {
		return lib.BatchAdd(ctx, false, bases, unsafe.Pointer(&bm[0]), uint64(1)<<cfg.BatchLog, unsafe.Pointer(&out))
	})
	if err != nil {
		return err
	}
	benchRow(w, "g1_batch_add_half", cfg.BatchLog, d)
	return nil
}

func benchG2(w io.Writer, lib *cuda.Lib, ctx cuda.Ctx, cfg BenchConfig) error {
	al := &allocs{lib: lib, ctx: ctx}
	defer al.free()
	n := uint64(1) << cfg.G2MaxLog
	bases, err := al.alloc(n * g2AffineBytes)
	if err != nil {
		return err
	}
	t0 := time.Now()
	if err := genG2Bases(lib, ctx, bases, n); err != nil {
		return err
	}
	fmt.Fprintf(w, "generated %d G2 bases on the device in %v\n", n, time.Since(t0).Round(time.Millisecond))
	one := fr.One()
	random, err := al.alloc(n * frBytes)
	if err != nil {
		return err
	}
	if err := lib.GenScalars(ctx, random, n, 5, 0, 0, unsafe.Pointer(&one)); err != nil {
		return err
	}
	var wins [cuda.MaxWindows]g2XYZZ
	for lg := cfg.G2MinLog; lg <= cfg.G2MaxLog; lg++ {
		err := msmRow(w, lib, ctx, "g2_msm_random", lg, cfg.Repeats, func() error {
			_, _, err := lib.MSM(ctx, true, bases, random, uint64(1)<<lg, 0, unsafe.Pointer(&wins[0]))
			return err
		})
		if err != nil {
			return err
		}
	}
	for _, tu := range cfg.G2Tunings {
		err := msmRow(w, lib, ctx, fmt.Sprintf("g2_msm_random_t%#x", tu), cfg.G2MaxLog, cfg.Repeats, func() error {
			_, _, err := lib.MSM(ctx, true, bases, random, n, tu, unsafe.Pointer(&wins[0]))
			return err
		})
		if err != nil {
			return err
		}
	}
	return nil
}

func benchNTT(w io.Writer, lib *cuda.Lib, ctx cuda.Ctx, cfg BenchConfig) error {
	al := &allocs{lib: lib, ctx: ctx}
	defer al.free()
	n := uint64(1) << cfg.NTTMaxLog
	data, err := al.alloc(n * frBytes)
	if err != nil {
		return err
	}
	one := fr.One()
	if err := lib.GenScalars(ctx, data, n, 7, 0, 0, unsafe.Pointer(&one)); err != nil {
		return err
	}
	for lg := cfg.NTTMinLog; lg <= cfg.NTTMaxLog; lg++ {
		dom := fft.NewDomain(uint64(1)<<lg, fft.WithoutPrecompute())
		root, g := dom.Generator, dom.FrMultiplicativeGen
		d, err := benchTimer(cfg.Repeats, func() error {
			return lib.NTT(ctx, data, uint32(lg), unsafe.Pointer(&root), false)
		})
		if err != nil {
			return err
		}
		benchRow(w, "ntt_forward_nr", lg, d)
		d, err = benchTimer(cfg.Repeats, func() error {
			return lib.NTTCoset(ctx, data, uint32(lg), unsafe.Pointer(&root), unsafe.Pointer(&one), unsafe.Pointer(&g), false, 0)
		})
		if err != nil {
			return err
		}
		benchRow(w, "ntt_coset_nr", lg, d)
		d, err = benchTimer(cfg.Repeats, func() error {
			return lib.NTT(ctx, data, uint32(lg), unsafe.Pointer(&root), true)
		})
		if err != nil {
			return err
		}
		benchRow(w, "ntt_forward_rn", lg, d)
	}
	dom := fft.NewDomain(n, fft.WithoutPrecompute())
	root, g := dom.Generator, dom.FrMultiplicativeGen
	if cfg.NTTLegacy {
		d, err := benchTimer(cfg.Repeats, func() error {
			return lib.NTTTile(ctx, data, uint32(cfg.NTTMaxLog), unsafe.Pointer(&root), false, nttLegacy)
		})
		if err != nil {
			return err
		}
		benchRow(w, "ntt_forward_nr_legacy", cfg.NTTMaxLog, d)
		d, err = benchTimer(cfg.Repeats, func() error {
			return lib.NTTTile(ctx, data, uint32(cfg.NTTMaxLog), unsafe.Pointer(&root), false, nttNoDirect)
		})
		if err != nil {
			return err
		}
		benchRow(w, "ntt_forward_nr_nodirect", cfg.NTTMaxLog, d)
		for _, tile := range []int{10, 11} {
			d, err = benchTimer(cfg.Repeats, func() error {
				return lib.NTTTile(ctx, data, uint32(cfg.NTTMaxLog), unsafe.Pointer(&root), false, nttBounded|tile)
			})
			if err != nil {
				return err
			}
			benchRow(w, fmt.Sprintf("ntt_forward_nr_bounded_tile%d", tile), cfg.NTTMaxLog, d)
		}
		d, err = benchTimer(cfg.Repeats, func() error {
			return lib.NTTCoset(ctx, data, uint32(cfg.NTTMaxLog), unsafe.Pointer(&root), unsafe.Pointer(&one), unsafe.Pointer(&g), false, nttLegacy)
		})
		if err != nil {
			return err
		}
		benchRow(w, "ntt_coset_nr_legacy", cfg.NTTMaxLog, d)
	}
	for _, tile := range cfg.NTTTileSweep {
		d, err := benchTimer(cfg.Repeats, func() error {
			return lib.NTTTile(ctx, data, uint32(cfg.NTTMaxLog), unsafe.Pointer(&root), false, tile)
		})
		if err != nil {
			return err
		}
		benchRow(w, fmt.Sprintf("ntt_forward_nr_tile%d", tile), cfg.NTTMaxLog, d)
	}
	return nil
}
