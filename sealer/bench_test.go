package sealer_test

import (
	"syscall"
	"testing"
	"time"

	"github.com/filecoin-project/go-state-types/abi"

	"github.com/snarkpipe/snarkpipe/sealer"
	"github.com/snarkpipe/snarkpipe/sealer/refseal"
	"github.com/snarkpipe/snarkpipe/types"
	"github.com/snarkpipe/snarkpipe/types/vanilla"
)

// cpuTime is the process's user + system CPU time. Benchmarks report it next to wall time
// because the shared development machines are often oversubscribed: CPU seconds divided by
// the core count is what the same work takes on dedicated cores.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkVerifyC1 decodes and verifies a synthetic full-shape C1 output (JSON as lotus
// sends it) per iteration. Generating the input takes seconds at 32/64 GiB.
func BenchmarkVerifyC1(b *testing.B) {
	for _, id := range []abi.RegisteredSealProof{abi.RegisteredSealProof_StackedDrg32GiBV1_1, abi.RegisteredSealProof_StackedDrg64GiBV1_1} {
		info, _ := types.SealProof(id)
		b.Run(info.RustName, func(b *testing.B) {
			c1, sid, err := refseal.SynthC1(info, 1)
			if err != nil {
				b.Fatal(err)
			}
			raw := vanilla.EncodeC1(c1)
			b.SetBytes(int64(len(raw)))
			cpu0 := cpuTime()
			b.ResetTimer()
			for b.Loop() {
				out, err := vanilla.DecodeC1(raw)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := sealer.VerifyC1(out, &sid); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric((cpuTime()-cpu0).Seconds()/float64(b.N), "cpu-s/op")
		})
	}
}

// BenchmarkVerifyWindowPoSt verifies a full synthetic 32 GiB Window PoSt partition (2349
// sectors × 10 challenges).
func BenchmarkVerifyWindowPoSt(b *testing.B) {
	info, _ := types.PoStProof(abi.RegisteredPoStProof_StackedDrgWindow32GiBV1_1)
	sp, err := refseal.SynthPoStProofs(info, 1)
	if err != nil {
		b.Fatal(err)
	}
	pub := &sealer.PoStPublic{Proof: info, Randomness: sp.Randomness}
	for _, s := range sp.Sectors {
		pub.Sectors = append(pub.Sectors, sealer.PoStSector{Number: s.Number, CommR: s.CommR})
	}
	cpu0 := cpuTime()
	b.ResetTimer()
	for b.Loop() {
		if err := sealer.VerifyPoSt(pub, sp.Proofs); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric((cpuTime()-cpu0).Seconds()/float64(b.N), "cpu-s/op")
}
