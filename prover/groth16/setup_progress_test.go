package groth16_test

import (
	"bytes"
	"sync"
	"testing"

	"github.com/snarkpipe/snarkpipe/prover/groth16"
	"github.com/snarkpipe/snarkpipe/prover/r1cs"
	"github.com/snarkpipe/snarkpipe/prover/r1cs/r1cstest"
)

// TestDevSetupProgress: the progress reaches its total and reporting it
// changes nothing in the parameters.
func TestDevSetupProgress(t *testing.T) {
	rec := r1cs.NewRecorder(r1cs.Capacity{})
	if err := (&r1cstest.Chain{N: 5000}).Synthesize(rec); err != nil {
		t.Fatal(err)
	}
	shape := rec.Finish()
	var mu sync.Mutex
	var last, total int64
	calls := 0
	p, err := groth16.DevSetupProgress(shape, newSeeded(3), func(done, tot int64) {
		mu.Lock()
		defer mu.Unlock()
		calls++
		if done > last {
			last = done
		}
		total = tot
	})
	if err != nil {
		t.Fatal(err)
	}
	if calls < 2 || last != total || total == 0 {
		t.Fatalf("%d calls, last %d of %d", calls, last, total)
	}
	q, err := groth16.DevSetup(shape, newSeeded(3))
	if err != nil {
		t.Fatal(err)
	}
	var a, b bytes.Buffer
	p.WriteTo(&a)
	q.WriteTo(&b)
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Fatal("progress reporting changed the parameters")
	}
}
