package gpu

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr/fft"
	"github.com/snarkpipe/snarkpipe/cuda"
)

func TestChooseArith(t *testing.T) {
	h200 := cuda.DeviceProps{CCMajor: 9, FP32PerFP64: 2}
	rtx4090 := cuda.DeviceProps{CCMajor: 8, CCMinor: 9, FP32PerFP64: 64}
	rtx5090 := cuda.DeviceProps{CCMajor: 12, FP32PerFP64: 64}
	a100 := cuda.DeviceProps{CCMajor: 8, FP32PerFP64: 2}
	unknown := cuda.DeviceProps{CCMajor: 8, CCMinor: 6}
	for _, c := range []struct {
		name   string
		p      cuda.DeviceProps
		probed bool
		want   Arith
		got    cuda.Arith
		reason string
	}{
		{"H200 auto", h200, true, ArithAuto, cuda.ArithFP64, "1/2 of the FP32 rate on sm_90"},
		{"A100 auto", a100, true, ArithAuto, cuda.ArithFP64, "on sm_80"},
		{"RTX 4090 auto", rtx4090, true, ArithAuto, cuda.ArithInt, "only 1/64 of the FP32 rate on sm_89"},
		{"RTX 5090 auto", rtx5090, true, ArithAuto, cuda.ArithInt, "sm_120"},
		{"ratio unknown", unknown, true, ArithAuto, cuda.ArithInt, "does not report"},
		{"old library", cuda.DeviceProps{}, false, ArithAuto, cuda.ArithFP64, "without the device probe"},
		{"H200 forced int", h200, true, ArithInt, cuda.ArithInt, "forced"},
		{"RTX 4090 forced fp64", rtx4090, true, ArithFP64, cuda.ArithFP64, "forced"},
	} {
		ch := chooseArith(c.p, c.probed, c.want)
		if ch.Arith != c.got || !strings.Contains(ch.Reason, c.reason) {
			t.Errorf("%s: %v, want %v with a reason naming %q", c.name, ch, c.got, c.reason)
		}
	}
}

func TestParseArith(t *testing.T) {
	for in, want := range map[string]Arith{"": ArithAuto, "auto": ArithAuto, "int": ArithInt, "fp64": ArithFP64} {
		if got, err := ParseArith(in); err != nil || got != want {
			t.Errorf("ParseArith(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"FP64", "integer", "fp32"} {
		if _, err := ParseArith(bad); err == nil {
			t.Errorf("ParseArith(%q) accepted", bad)
		}
		if err := (Config{Arith: Arith(bad)}).Validate(); err == nil {
			t.Errorf("Config{Arith: %q}.Validate() accepted", bad)
		}
	}
}

// TestMemoryLimit: with a cap, an allocation that would take the device's ledger past it
// fails with an out-of-memory error, one that reaches it exactly succeeds, freed memory
// counts again, and the device reports the cap as its memory.
func TestMemoryLimit(t *testing.T) {
	probeB := testBackend(t)
	before, err := probeB.Ledger()
	if err != nil {
		t.Fatal(err)
	}
	const room = 48 << 20
	limit := before.Used + room
	b := testBackendWith(t, Config{MemoryLimit: limit})
	t.Cleanup(func() { _ = b.lib.SetMemoryLimit(b.device, 0) })
	if r := b.Report(); r.MemoryLimit != limit || !strings.Contains(r.Summary(), "capped at") {
		t.Errorf("report %+v: want the cap %d in it", r, limit)
	}
	if _, total, err := b.MemInfo(); err == nil && total != limit {
		t.Errorf("MemInfo total = %d under a cap of %d", total, limit)
	}
	start, _ := b.Ledger()
	left := limit - start.Used
	var p1, p2 cuda.DevPtr
	err = b.call(func(ctx cuda.Ctx) error {
		var err error
		if p1, err = b.alloc(ctx, left-1000); err != nil {
			return err
		}
		if _, err := b.alloc(ctx, 1001); !errors.Is(err, cuda.ErrOutOfMemory) {
			t.Errorf("allocation past the cap: %v, want ErrOutOfMemory", err)
		} else if want := fmt.Sprintf(" %.1f", float64(left-1000)/(1<<20)); !strings.Contains(err.Error(), "largest (MiB):"+want) {
			t.Errorf("refusal %q does not list the largest buffer (%s MiB) first", err, want)
		}
		if p2, err = b.alloc(ctx, 1000); err != nil { // exactly to the cap
			return err
		}
		if g, _ := b.Ledger(); g.Used != limit || g.Peak < limit {
			t.Errorf("ledger at the cap: %+v, want used = %d", g, limit)
		}
		if _, err := b.alloc(ctx, 1); !errors.Is(err, cuda.ErrOutOfMemory) {
			t.Errorf("one byte past a full cap: %v, want ErrOutOfMemory", err)
		}
		if err := b.free(ctx, p1); err != nil {
			return err
		}
		p1 = 0
		if g, _ := b.Ledger(); g.Used != limit-(left-1000) {
			t.Errorf("after a free: used %d, want %d", g.Used, limit-(left-1000))
		}
		if p1, err = b.alloc(ctx, left-1000); err != nil {
			t.Errorf("freed memory does not count again: %v", err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	_ = b.call(func(ctx cuda.Ctx) error {
		if p1 != 0 {
			_ = b.free(ctx, p1)
		}
		return b.free(ctx, p2)
	})
	if g, _ := b.Ledger(); g.Used != start.Used {
		t.Errorf("after freeing all: used %d, want %d", g.Used, start.Used)
	}
	// A cap below what is allocated is refused.
	if err := b.lib.SetMemoryLimit(b.device, 1); err == nil && start.Used > 1 {
		t.Error("a cap below the allocated bytes was accepted")
	}
}

// TestArithAgree: the integer and the FP64 products give the same transforms and
// quotient, equal to gnark-crypto's, whatever the device would choose.
func TestArithAgree(t *testing.T) {
	bi := testBackendWith(t, Config{Arith: ArithInt})
	bf := testBackendWith(t, Config{Arith: ArithFP64})
	if bi.Report().Arith.Arith != cuda.ArithInt || bf.Report().Arith.Arith != cuda.ArithFP64 {
		t.Fatalf("arithmetic not as forced: %v, %v", bi.Report().Arith, bf.Report().Arith)
	}
	rng := rand.New(rand.NewPCG(31, 32))
	for _, lg := range []int{1, 4, 10, 11, 13} {
		n := 1 << lg
		d := fft.NewDomain(uint64(n))
		for _, dit := range []bool{false, true} {
			v := randScalars(rng, n)
			want := slices_clone(v)
			if dit {
				d.FFT(want, fft.DIT)
			} else {
				d.FFT(want, fft.DIF)
			}
			for _, b := range []*Backend{bi, bf} {
				got := slices_clone(v)
				deviceNTT(t, b, got, d.Generator, dit, 0)
				if !slices.Equal(got, want) {
					t.Errorf("%s NTT 2^%d dit=%v differs from gnark-crypto", b.arith.Arith, lg, dit)
				}
			}
		}
	}
}

// TestMSMUnderMemoryCap: under ever tighter device-memory caps the MSMs fit their batches
// of windows to what is left (msm_fit_batch) and either give gnark-crypto's result or
// fail with ErrOutOfMemory, never a wrong sum; and they narrow their windows so that the
// buckets fit (msm_window_bits): 7 of 14 proved with the batches fitted alone, 4 with
// neither, 10 with both.
func TestMSMUnderMemoryCap(t *testing.T) {
	b := testBackend(t)
	t.Cleanup(func() { _ = b.lib.SetMemoryLimit(b.device, 0) })
	rng := rand.New(rand.NewPCG(41, 42))
	const n = 4096
	p1, p2 := randPoints(rng, n)
	g1b, g2b := loadBases(t, b, p1, p2)
	s := scalarCase(rng, "random", n)
	want1, want2 := cpuMSMG1(p1, s), cpuMSMG2(p2, s)
	base, err := b.Ledger()
	if err != nil {
		t.Fatal(err)
	}
	// The MSM's scratch beyond the scalars: some MiB for all windows at once, about a
	// tenth of that for one window per batch.
	proved := 0
	for _, room := range []uint64{64 << 20, 8 << 20, 4 << 20, 2 << 20, 1 << 20, 512 << 10, 128 << 10} {
		if err := b.lib.SetMemoryLimit(b.device, base.Used+room); err != nil {
			t.Fatal(err)
		}
		got1, err1 := b.MSMG1(g1b, 0, s)
		got2, err2 := b.MSMG2(g2b, 0, s)
		for _, c := range []struct {
			curve string
			err   error
			ok    bool
		}{{"G1", err1, err1 == nil && got1.Equal(&want1)}, {"G2", err2, err2 == nil && got2.Equal(&want2)}} {
			switch {
			case c.err != nil && !errors.Is(c.err, cuda.ErrOutOfMemory):
				t.Errorf("%s under a cap of %d spare bytes: %v, want success or ErrOutOfMemory", c.curve, room, c.err)
			case c.err == nil && !c.ok:
				t.Errorf("%s under a cap of %d spare bytes: wrong sum", c.curve, room)
			case c.err == nil:
				proved++
			}
		}
		if g, _ := b.Ledger(); g.Used != base.Used {
			t.Errorf("after the MSMs under a cap of %d spare bytes: %d bytes still allocated, want %d", room, g.Used, base.Used)
		}
	}
	t.Logf("%d of 14 capped MSMs proved", proved)
	if proved < 9 {
		t.Errorf("only %d of 14 capped MSMs proved: the batches are not fitted to the room", proved)
	}
}
