package pipeline

import (
	"encoding/binary"
	"math/bits"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/snarkpipe/snarkpipe/prover/r1cs"
	"github.com/snarkpipe/snarkpipe/prover/srs"
)

// keyHash folds the stream a circuit emits while synthesizing (allocations and every
// row's raw terms, before any merging) into a 128-bit key: two independent
// multiply-rotate lanes over 64-bit words. It is not cryptographic; it names recordings
// of our own circuits, so it only has to change whenever the circuit code does. It costs
// a few multiplications per term, far less than recording.
type keyHash struct{ a, b uint64 }

const (
	tagAlloc uint64 = iota + 1
	tagInput
	tagRow
)

func (k *keyHash) word(v uint64) {
	k.a = bits.RotateLeft64((k.a^v)*0x9e3779b97f4a7c15, 31)
	k.b = (k.b + v) * 0xc2b2ae3d27d4eb4f
	k.b ^= k.b >> 29
}

func (k *keyHash) lc(lc *r1cs.LC) {
	if lc == nil {
		k.word(0)
		return
	}
	k.word(uint64(len(*lc)))
	for i := range *lc {
		t := &(*lc)[i]
		k.word(uint64(t.Var))
		for _, w := range t.Coeff {
			k.word(w)
		}
	}
}

func (k *keyHash) row(a, b, c *r1cs.LC) {
	k.word(tagRow)
	k.lc(a)
	k.lc(b)
	k.lc(c)
}

func (k *keyHash) sum(s r1cs.Sizes) srs.RecordingKey {
	k.word(uint64(s.NumInputs))
	k.word(uint64(s.NumAux))
	k.word(uint64(s.NumConstraints))
	var key srs.RecordingKey
	binary.LittleEndian.PutUint64(key[:8], k.a)
	binary.LittleEndian.PutUint64(key[8:], k.b)
	return key
}

// keyCS is a ConstraintSystem that only computes the recording key, the sizes, and the
// number of terms of A, B and C a recording stores (merged, as the recorder merges them).
type keyCS struct {
	h     keyHash
	sizes r1cs.Sizes
	terms [3]int
}

func newKeyCS() *keyCS {
	k := &keyCS{}
	k.AllocInput(r1cs.CoeffOne())
	return k
}

func (k *keyCS) Alloc(fr.Element) r1cs.Variable {
	k.h.word(tagAlloc)
	k.sizes.NumAux++
	return r1cs.Aux(k.sizes.NumAux - 1)
}

func (k *keyCS) AllocInput(fr.Element) r1cs.Variable {
	k.h.word(tagInput)
	k.sizes.NumInputs++
	return r1cs.Input(k.sizes.NumInputs - 1)
}

func (k *keyCS) Enforce(_ string, a, b, c *r1cs.LC) {
	k.sizes.NumConstraints++
	k.h.row(a, b, c) // the raw terms, before merging
	k.terms[0] += mergedLen(a)
	k.terms[1] += mergedLen(b)
	k.terms[2] += mergedLen(c)
}

// mergedLen canonicalizes lc in place, as a recorder does (after the hash has seen the
// raw terms), and returns the number of terms a recording stores for it: counting raw
// terms instead over-sizes the PoRep circuit's matrix A by ~38 %, spare capacity the
// recording would keep or copy away (trimRecording).
func mergedLen(lc *r1cs.LC) int {
	if lc == nil {
		return 0
	}
	lc.Canonicalize()
	return len(*lc)
}

func (k *keyCS) Push(string) {}
func (k *keyCS) Pop()        {}

func (k *keyCS) key() srs.RecordingKey { return k.h.sum(k.sizes) }

// capacity sizes a recorder for the synthesis just hashed. A recorder that starts empty
// grows its matrices step by step, copying them each time: on the 2 KiB PoRep circuit
// that is 40–60 % of the recording's CPU time, more than this hash-only synthesis
// costs (docs/BENCHMARKS.md, "Cold-start recording in one pass").
func (k *keyCS) capacity() r1cs.Capacity {
	terms := k.terms
	terms[0] += k.sizes.NumInputs // Finish adds a row of one term to A per input
	return r1cs.Capacity{
		Inputs: k.sizes.NumInputs, Aux: k.sizes.NumAux, Constraints: k.sizes.NumConstraints,
		NonZeros: terms[0] + terms[1] + terms[2], MatrixNonZeros: terms,
	}
}

// recordingCS records the shape and computes the key in one synthesis. The key sees the
// raw terms before they are canonicalized in place (by keyCS, after hashing; the
// recorder then finds them canonical).
type recordingCS struct {
	key *keyCS
	rec *r1cs.Recorder
}

func (r recordingCS) Alloc(v fr.Element) r1cs.Variable {
	r.key.Alloc(v)
	return r.rec.Alloc(v)
}

func (r recordingCS) AllocInput(v fr.Element) r1cs.Variable {
	r.key.AllocInput(v)
	return r.rec.AllocInput(v)
}

func (r recordingCS) Enforce(ann string, a, b, c *r1cs.LC) {
	r.key.Enforce(ann, a, b, c)
	r.rec.Enforce(ann, a, b, c)
}

func (r recordingCS) Push(ns string) { r.rec.Push(ns) }
func (r recordingCS) Pop()           { r.rec.Pop() }
