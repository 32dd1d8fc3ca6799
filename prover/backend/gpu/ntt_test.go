package gpu

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"
	"unsafe"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr/fft"
	"github.com/snarkpipe/snarkpipe/cuda"
	"github.com/snarkpipe/snarkpipe/prover/backend/cpu"
)

// deviceNTT copies v to the device, transforms it and copies it back.
func deviceNTT(t *testing.T, b *Backend, v []fr.Element, root fr.Element, dit bool, tileLog int) {
	t.Helper()
	lg := uint32(0)
	for 1<<lg < len(v) {
		lg++
	}
	bytes := uint64(len(v)) * frBytes
	err := b.call(func(ctx cuda.Ctx) error {
		p, err := b.devBuf(ctx, unsafe.Pointer(&v[0]), bytes)
		if err != nil {
			return err
		}
		defer b.lib.Free(ctx, p)
		if err := b.lib.NTTTile(ctx, p, lg, unsafe.Pointer(&root), dit, tileLog); err != nil {
			return err
		}
		return b.lib.Download(ctx, unsafe.Pointer(&v[0]), p, bytes)
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestNTTMatchesGnark(t *testing.T) {
	b := testBackend(t)
	rng := rand.New(rand.NewPCG(21, 22))
	logs := []int{1, 2, 3, 5, 9, 10, 11, 12, 16, 19, 20, 21}
	if testing.Short() {
		logs = logs[:8]
	}
	for _, lg := range logs {
		n := 1 << lg
		d := fft.NewDomain(uint64(n))
		for _, dit := range []bool{false, true} {
			// 0: the library's default; nttLegacy|11: the one-butterfly-per-thread kernel;
			// nttNoDirect|11: two-table twiddles in every pass; nttBounded|11: ≤ 128 registers.
			for _, tile := range []int{0, 10, 11, nttLegacy | 11, nttNoDirect | 11, nttBounded | 11} {
				v := randScalars(rng, n)
				want := slices_clone(v)
				if dit {
					d.FFT(want, fft.DIT) // bit-reversed in, natural out
				} else {
					d.FFT(want, fft.DIF) // natural in, bit-reversed out
				}
				deviceNTT(t, b, v, d.Generator, dit, tile)
				for i := range v {
					if v[i] != want[i] {
						t.Errorf("NTT 2^%d dit=%v tile=%d: first mismatch at %d", lg, dit, tile, i)
						break
					}
				}
			}
		}
	}
}

func slices_clone(v []fr.Element) []fr.Element { return append([]fr.Element(nil), v...) }

func TestQuotientHMatchesCPU(t *testing.T) {
	b := testBackend(t)
	c, err := cpu.New(cpu.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(23, 24))
	logs := []int{1, 2, 5, 10, 11, 16, 20}
	if testing.Short() {
		logs = logs[:5]
	}
	for _, lg := range logs {
		m := 1 << lg
		va, vb, vc := randScalars(rng, m), randScalars(rng, m), randScalars(rng, m)
		ca, cb, cc := slices_clone(va), slices_clone(vb), slices_clone(vc)
		if err := b.QuotientH(va, vb, vc); err != nil {
			t.Fatal(err)
		}
		if err := c.QuotientH(ca, cb, cc); err != nil {
			t.Fatal(err)
		}
		for i := 0; i < m-1; i++ {
			if va[i] != ca[i] {
				t.Errorf("QuotientH m=2^%d: first mismatch at %d", lg, i)
				break
			}
		}
	}
}

func TestBenchSmall(t *testing.T) {
	b := testBackend(t)
	var out bytes.Buffer
	cfg := BenchConfig{LibPath: b.lib.Path, G1MinLog: 10, G1MaxLog: 12, G2MinLog: 10, G2MaxLog: 11,
		NTTMinLog: 10, NTTMaxLog: 12, BatchLog: 12, Repeats: 1,
		NTTLegacy: true, G1Tunings: []uint32{msmTuneInlineMul | msmTunePrefetch}, G2Tunings: []uint32{msmTunePrefetch}}
	if err := Bench(&out, cfg); err != nil {
		t.Fatal(err)
	}
	for _, row := range []string{"g1_msm_random", "g1_msm_filecoin", "g2_msm_random", "ntt_forward_nr", "ntt_coset_nr", "g1_batch_add_half",
		"ntt_forward_nr_legacy", "ntt_forward_nr_nodirect", "ntt_coset_nr_legacy", "g1_msm_random_t0x300", "g2_msm_random_t0x200"} {
		if !strings.Contains(out.String(), row) {
			t.Errorf("bench output lacks %s:\n%s", row, out.String())
		}
	}
}

// TestNTTCosetMatchesGnark: the coset transform (x[p] *= c·g^p fused into the first pass)
// equals scaling on the host and gnark-crypto's transform, in both orders, with the legacy
// kernel too (which scales in a separate pass).
func TestNTTCosetMatchesGnark(t *testing.T) {
	b := testBackend(t)
	rng := rand.New(rand.NewPCG(25, 26))
	// 12 and 15: two passes, the first of stride 2^6 and 2^7 (odd: unequal halves of
	// NttCosetFirst's tables); 21: three passes.
	logs := []int{1, 2, 3, 4, 9, 12, 15, 17, 21}
	if testing.Short() {
		logs = logs[:7]
	}
	for _, lg := range logs {
		n := 1 << lg
		d := fft.NewDomain(uint64(n))
		c, g := randFr(rng), randFr(rng)
		for _, dit := range []bool{false, true} {
			for _, tile := range []int{0, nttLegacy | 11} {
				v := randScalars(rng, n)
				want := slices_clone(v)
				var gp fr.Element
				gp.Set(&c)
				for i := range want {
					want[i].Mul(&want[i], &gp)
					gp.Mul(&gp, &g)
				}
				if dit {
					d.FFT(want, fft.DIT)
				} else {
					d.FFT(want, fft.DIF)
				}
				bytes := uint64(n) * frBytes
				err := b.call(func(ctx cuda.Ctx) error {
					p, err := b.devBuf(ctx, unsafe.Pointer(&v[0]), bytes)
					if err != nil {
						return err
					}
					defer b.lib.Free(ctx, p)
					root := d.Generator
					if err := b.lib.NTTCoset(ctx, p, uint32(lg), unsafe.Pointer(&root), unsafe.Pointer(&c), unsafe.Pointer(&g), dit, tile); err != nil {
						return err
					}
					return b.lib.Download(ctx, unsafe.Pointer(&v[0]), p, bytes)
				})
				if err != nil {
					t.Fatal(err)
				}
				for i := range v {
					if v[i] != want[i] {
						t.Errorf("coset NTT 2^%d dit=%v tile=%#x: first mismatch at %d", lg, dit, tile, i)
						break
					}
				}
			}
		}
	}
}
