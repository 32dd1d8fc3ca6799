package gpu

import (
	"errors"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/snarkpipe/snarkpipe/prover/groth16"
	"github.com/snarkpipe/snarkpipe/prover/r1cs/r1cstest"
)

// drip is a fill in progress as a streamed proof sees it: the backend gets zeroed
// buffers, and each wait copies the true values up to what it asks for, so a stage that
// read past what it waited for would see zeros and make a wrong proof. failAt > 0 fails
// the wait for a prefix of at least failAt values.
type drip struct {
	inputs, aux     []fr.Element // what the backend reads
	trueIn, trueAux []fr.Element
	failAt          int
	mu              sync.Mutex
	waits, allWaits int
	filled          int
}

var errDripFill = errors.New("drip: the fill failed")

func newDrip(inputs, aux []fr.Element) *drip {
	return &drip{inputs: make([]fr.Element, len(inputs)), aux: make([]fr.Element, len(aux)), trueIn: inputs, trueAux: aux}
}

func (d *drip) WaitAux(n int) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.waits++
	if d.failAt > 0 && n >= d.failAt {
		return errDripFill
	}
	if n < d.filled {
		return errors.New("drip: a wait went back")
	}
	copy(d.aux[d.filled:n], d.trueAux[d.filled:n])
	d.filled = n
	return nil
}

func (d *drip) WaitAll() error {
	if err := d.WaitAux(len(d.aux)); err != nil {
		return err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.allWaits++
	copy(d.inputs, d.trueIn)
	return nil
}

// TestStreamedProofMatchesPlain: a streamed proof, whose assignment appears a prefix at a
// time, equals the plain resident proof for several cut plans (the default, fine cuts,
// cuts that leave chunks with no A or B variables, a single chunk), waits for each
// prefix before it reads it, and reports its chunks; a fill that fails stops the proof
// with the fill's error, and the backend proves again afterwards.
func TestStreamedProofMatchesPlain(t *testing.T) {
	c := r1cstest.Random{Seed: 51, Constraints: 700, Inputs: 3, Unused: 9}
	shape, w := recordRandom(t, &c)
	plans := [][]float64{nil, {0.1, 0.2, 0.3, 0.5, 0.9}, {0.001, 0.002, 0.999}, {0.5}}
	var want [192]byte
	for i, plan := range plans {
		b := testBackendWith(t, Config{StreamPlan: plan})
		b.streamMinAux = 0 // cut even these small shapes
		pk, err := groth16.BenchSetup(b, shape, chachaReader{rand.NewChaCha8([32]byte{51})})
		if err != nil {
			t.Fatal(err)
		}
		rc := loadResident(t, pk, shape)
		rs, _ := groth16.SampleRandomness(chachaReader{rand.NewChaCha8([32]byte{52})})
		if i == 0 {
			p, _, err := rc.Prove(w.Inputs, w.Aux, &rs)
			if err != nil {
				t.Fatal(err)
			}
			want = p.Bytes()
		}
		d := newDrip(w.Inputs, w.Aux)
		got, tm, err := rc.ProveStreamed(d.inputs, d.aux, d, &rs)
		if err != nil {
			t.Fatalf("plan %v: %v", plan, err)
		}
		if got.Bytes() != want {
			t.Fatalf("plan %v: streamed proof differs from the plain resident proof", plan)
		}
		chunks := len(planStream(shape, b.plan))
		if tm.Chunks != chunks || d.waits != chunks+1 || d.allWaits != 1 {
			t.Errorf("plan %v: %d chunks reported, %d prefix waits and %d whole waits; want %d chunks", plan, tm.Chunks, d.waits, d.allWaits, chunks)
		}
		if tm.MSML <= 0 || tm.MSMA <= 0 || tm.MSMB1 <= 0 || tm.MSMB2 <= 0 || tm.MSMH <= 0 || tm.Quotient <= 0 || tm.Eval <= 0 || tm.Upload <= 0 {
			t.Errorf("plan %v: stage times missing: %+v", plan, tm.ResidentTimings)
		}
		if i == 0 {
			// At the default threshold a shape this small is not cut: it proves whole
			// once the fill has ended, with the same bytes.
			b.streamMinAux = minStreamAux
			whole := loadResident(t, pk, shape)
			d := newDrip(w.Inputs, w.Aux)
			got, tm, err := whole.ProveStreamed(d.inputs, d.aux, d, &rs)
			if err != nil || got.Bytes() != want || tm.Chunks != 0 || d.waits != 1 || d.allWaits != 1 {
				t.Fatalf("small shape: %v, equal %v, %d chunks, %d waits, %d whole waits", err, got.Bytes() == want, tm.Chunks, d.waits, d.allWaits)
			}
		}
		if i == 1 {
			bad := newDrip(w.Inputs, w.Aux)
			bad.failAt = len(w.Aux) / 4
			if _, _, err := rc.ProveStreamed(bad.inputs, bad.aux, bad, &rs); !errors.Is(err, errDripFill) {
				t.Fatalf("failed fill: got %v, want the fill's error", err)
			}
			again := newDrip(w.Inputs, w.Aux)
			if got, _, err := rc.ProveStreamed(again.inputs, again.aux, again, &rs); err != nil || got.Bytes() != want {
				t.Fatalf("streamed proof after a failed fill: %v (equal: %v)", err, got.Bytes() == want)
			}
		}
	}
}

// TestPlanStream: the chunks cover aux in order without gaps, and their positions in the
// b density list count the B variables before them.
func TestPlanStream(t *testing.T) {
	shape, _ := recordRandom(t, &r1cstest.Random{Seed: 53, Constraints: 500, Inputs: 4, Unused: 30})
	for _, plan := range [][]float64{nil, {0.5}, {0.0001, 0.3, 0.30001, 0.9999}} {
		chunks := planStream(shape, (Config{StreamPlan: plan}).streamPlan())
		lo, b := 0, shape.BInput.Count()
		for _, ch := range chunks {
			if ch.auxLo != lo || ch.auxHi <= ch.auxLo || ch.bLo != b {
				t.Fatalf("plan %v: chunk %+v does not follow aux %d, b %d", plan, ch, lo, b)
			}
			for j := ch.auxLo; j < ch.auxHi; j++ {
				if shape.BAux.Get(j) {
					b++
				}
			}
			if ch.bHi != b {
				t.Fatalf("plan %v: chunk %+v ends at b %d", plan, ch, b)
			}
			lo = ch.auxHi
		}
		if lo != shape.NumAux {
			t.Fatalf("plan %v: chunks end at %d of %d aux", plan, lo, shape.NumAux)
		}
	}
}
