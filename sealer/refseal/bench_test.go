package refseal

import (
	"syscall"
	"testing"
	"time"

	"github.com/filecoin-project/go-state-types/abi"

	"github.com/snarkpipe/snarkpipe/types"
)

// cpuTime is the process's user + system CPU time (see sealer's benchmarks: the shared
// development machines are oversubscribed, so CPU seconds are reported next to wall time).
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func BenchmarkSynthC1(b *testing.B) {
	for _, id := range []abi.RegisteredSealProof{abi.RegisteredSealProof_StackedDrg32GiBV1_1, abi.RegisteredSealProof_StackedDrg64GiBV1_1} {
		info, _ := types.SealProof(id)
		b.Run(info.RustName, func(b *testing.B) {
			cpu0 := cpuTime()
			for b.Loop() {
				if _, _, err := SynthC1(info, 1); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric((cpuTime()-cpu0).Seconds()/float64(b.N), "cpu-s/op")
		})
	}
}

func BenchmarkSynthPoSt(b *testing.B) {
	for _, id := range []abi.RegisteredPoStProof{abi.RegisteredPoStProof_StackedDrgWinning32GiBV1, abi.RegisteredPoStProof_StackedDrgWindow32GiBV1_1, abi.RegisteredPoStProof_StackedDrgWindow64GiBV1_1} {
		info, _ := types.PoStProof(id)
		b.Run(info.RustName, func(b *testing.B) {
			cpu0 := cpuTime()
			for b.Loop() {
				if _, err := SynthPoStProofs(info, 1); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric((cpuTime()-cpu0).Seconds()/float64(b.N), "cpu-s/op")
		})
	}
}
