package pipeline

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/snarkpipe/snarkpipe/prover"
)

// With batching on, partitions of one circuit from several jobs are proved together and
// every proof still verifies for its own public input.
func TestCrossJobBatching(t *testing.T) {
	cfg := testConfig()
	cfg.MaxBatch, cfg.MaxBatchWait = 4, 200*time.Millisecond
	cfg.WorkersPerDevice = 1
	p := startPipeline(t, cfg)
	vk := devVK(t, chain(70, 3))
	var wg sync.WaitGroup
	var mu sync.Mutex
	maxBatch := 0
	jobs := map[*Job]uint64{}
	for i := 0; i < 4; i++ {
		y0 := uint64(3 + i)
		jobs[submit(t, p, JobSpec{Priority: Normal, Circuits: []prover.Circuit{chain(70, y0)}})] = y0
	}
	for j, y0 := range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := j.Await(context.Background())
			if err != nil {
				t.Error(err)
				return
			}
			if err := vk.Verify(&res.Proofs[0], []fr.Element{chainOutput(70, y0)}); err != nil {
				t.Errorf("job %d: %v", j.ID, err)
			}
			mu.Lock()
			maxBatch = max(maxBatch, res.Timings[0].Batch)
			mu.Unlock()
		}()
	}
	wg.Wait()
	if maxBatch < 2 {
		t.Fatalf("largest batch %d: nothing was batched across jobs", maxBatch)
	}
}

// A batch never takes a partition out of priority order: it stops at the first queued
// partition of another circuit.
func TestPopBatchStopsAtAnotherCircuit(t *testing.T) {
	a, b := &circuitState{}, &circuitState{}
	q := newPQueue(0)
	mk := func(prio Priority, seq uint64, st *circuitState) *partition {
		return &partition{job: &Job{Priority: prio}, seq: seq, state: st}
	}
	for _, p := range []*partition{mk(Normal, 1, a), mk(Normal, 2, a), mk(Normal, 3, b), mk(Normal, 4, a), mk(Low, 5, a)} {
		q.push(context.Background(), p)
	}
	head, _ := q.pop(context.Background())
	got := q.popBatch(head, 10, 0)
	if len(got) != 1 || got[0].seq != 2 {
		t.Fatalf("batch took %d partitions", len(got))
	}
	if next, _ := q.pop(context.Background()); next.seq != 3 {
		t.Fatalf("next partition %d, want 3", next.seq)
	}
}
