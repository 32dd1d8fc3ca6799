package pipeline

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"runtime"
	"runtime/debug"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/snarkpipe/snarkpipe/prover"
	"github.com/snarkpipe/snarkpipe/prover/r1cs"
	"github.com/snarkpipe/snarkpipe/prover/r1cs/r1cstest"
	"github.com/snarkpipe/snarkpipe/prover/srs"
)

var setupRows = flag.Int("setup.rows", 1<<20, "constraints of the r1cstest.Random circuit that BenchmarkSetup sets up")

// BenchmarkSetup times the setup of a circuit id the store has no recording of (an empty
// recordings directory per iteration), from the first sight of the circuit to its
// recording in memory (trimmed: trimRecording), which is what the first partition waits
// for; the save that follows in the background (recordingSaver) is timed apart, as
// save-s/op:
//
//   - before: the path before the pre-sized recording: hash-only synthesis, store lookup,
//     recording synthesis into buffers that start empty, save (on the setup path, no trim);
//   - one-pass-growing: one synthesis into the hasher and a recorder that starts empty;
//   - first-start: prepare with no hint (now): hash-only synthesis, which sizes the
//     recorder, then the recording synthesis;
//   - hint-no-recording: prepare with the id's hint (now): one synthesis into the hasher
//     and a recorder sized by the hint.
//
// cpu-s is the process's CPU time (the shared VM is often oversubscribed, so wall time
// alone misleads); peak-heap-MiB the largest heap growth seen while it runs (sampled
// every 5 ms).
//
//	go test -run xxx -bench Setup -benchtime 1x ./prover/pipeline/ [-args -setup.rows N]
func BenchmarkSetup(b *testing.B) {
	c := &r1cstest.Random{Seed: 1, Constraints: *setupRows, Inputs: 16, Unused: *setupRows / 16}
	hint := hintOf(probeKey(b, c), freshRecording(b, c))
	b.Run("before", func(b *testing.B) { benchSetup(b, c, nil, beforeSetup) })
	b.Run("one-pass-growing", func(b *testing.B) {
		benchSetup(b, c, nil, func(cs *circuits, c prover.Circuit) error {
			_, err := cs.recordOnce(c, r1cs.Capacity{})
			return err
		})
	})
	b.Run("first-start", func(b *testing.B) { benchSetup(b, c, nil, prepareSetup) })
	b.Run("hint-no-recording", func(b *testing.B) { benchSetup(b, c, &hint, prepareSetup) })
}

func prepareSetup(cs *circuits, c prover.Circuit) error {
	_, err := cs.prepare(context.Background(), c)
	return err
}

// beforeSetup is the path of prepare before the pre-sized recording for an id without a
// hint or a recording, from the same parts: the save on the setup path, no trim.
func beforeSetup(cs *circuits, c prover.Circuit) error {
	k := newKeyCS()
	if err := contain(c.ID(), func() error { return c.Synthesize(k) }); err != nil {
		return err
	}
	key := k.key()
	if _, err := cs.store.Load(c.ID(), key); !errors.Is(err, srs.ErrNoRecording) {
		return fmt.Errorf("lookup in an empty store: %v", err)
	}
	_, shape, err := recordInto(c, r1cs.NewRecorder(r1cs.Capacity{}))
	if err != nil {
		return err
	}
	if err := cs.store.Save(c.ID(), key, shape); err != nil {
		return err
	}
	_, err = cs.setKey(c.ID(), key, heldShape{shape: shape})
	return err
}

func benchSetup(b *testing.B, c prover.Circuit, hint *Hint, setup func(*circuits, prover.Circuit) error) {
	var peak uint64
	var cpu, save time.Duration
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		dir := b.TempDir()
		cs := newCircuits(&srs.Recordings{Dir: dir}, openHints(dir), "")
		if hint != nil {
			if err := cs.hints.put(c.ID(), *hint); err != nil {
				b.Fatal(err)
			}
		}
		debug.FreeOSMemory() // each run faults its memory in afresh, as a new process does
		stop := sampleHeapGrowth()
		cpu0 := processCPU()
		b.StartTimer()
		if err := setup(cs, c); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		cpu += processCPU() - cpu0
		peak = max(peak, stop())
		key, held, err := cs.shapeFor(c)
		if err != nil {
			b.Fatal(err)
		}
		if held.unsaved { // the background save, off the setup path
			t := time.Now()
			if err := cs.saveIfAbsent(c.ID(), key, held.shape); err != nil {
				b.Fatal(err)
			}
			save += time.Since(t)
		}
	}
	b.ReportMetric(save.Seconds()/float64(b.N), "save-s/op")
	b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu-s/op")
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
}

// processCPU is the process's user + system CPU time.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// sampleHeapGrowth samples the live heap until the returned function is called, which
// returns the largest growth over the heap at the start.
func sampleHeapGrowth() func() uint64 {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base, peak := ms.HeapAlloc, ms.HeapAlloc
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(5 * time.Millisecond)
		defer t.Stop()
		var ms runtime.MemStats
		for {
			select {
			case <-done:
				return
			case <-t.C:
				runtime.ReadMemStats(&ms)
				peak = max(peak, ms.HeapAlloc)
			}
		}
	}()
	return func() uint64 {
		close(done)
		wg.Wait()
		return peak - base
	}
}
