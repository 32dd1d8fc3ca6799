package groth16

import (
	"bytes"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
)

// Seeds live in testdata/fuzz/<FuzzName>/ (Go's corpus layout) and are rewritten with
//
//	go test ./prover/groth16 -run TestWriteFuzzSeeds -write-fuzz-seeds
//
// Run the fuzzers with a short minimization budget, for instance
//
//	go test ./prover/groth16 -run '^$' -fuzz '^FuzzReadParams$' -fuzztime 60s -fuzzminimizetime 3s
//
// A valid input costs a few milliseconds under coverage instrumentation (verifying-key
// points are subgroup checked), so the default 60 s minimization of each new input would
// leave the workers minimizing instead of fuzzing.
var writeFuzzSeeds = flag.Bool("write-fuzz-seeds", false, "rewrite the fuzz seed corpus under testdata/fuzz")

// tpTinyShape keeps fuzz inputs small: one point per vector, 1560 bytes in all.
var tpTinyShape = ShapeCounts{Inputs: 1, Aux: 1, DomainSize: 2, AAux: 0, BInput: 1, BAux: 0}

func tpFuzzSeeds(t testing.TB) (params, vks, proofs [][]byte) {
	rng := rand.New(rand.NewPCG(51, 52))
	official := tpEncode(t, tpParams(rng, tpTinyShape, false))
	dev := tpEncode(t, tpParams(rng, tpTinyShape, true))
	vkLen := tpOffset(tpTinyShape, "h", 0) - 4
	p := tpProofs(rng, 2)
	one, two := p[0].Bytes(), p[1].Bytes()
	return [][]byte{official, dev, official[:vkLen+2]},
		[][]byte{official[:vkLen], dev[:vkLen]},
		[][]byte{one[:], append(one[:], two[:]...)}
}

func TestWriteFuzzSeeds(t *testing.T) {
	if !*writeFuzzSeeds {
		t.Skip("run with -write-fuzz-seeds to regenerate testdata/fuzz")
	}
	params, vks, proofs := tpFuzzSeeds(t)
	for name, seeds := range map[string][][]byte{
		"FuzzReadParams": params, "FuzzReadVerifyingKey": vks, "FuzzDecodeProof": proofs,
	} {
		dir := filepath.Join("testdata", "fuzz", name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for i, s := range seeds {
			body := fmt.Sprintf("go test fuzz v1\n[]byte(%q)\n", s)
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("seed-%d", i)), []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// FuzzReadParams: the parser never panics, its verdict does not depend on the number of
// workers, and whatever it accepts re-encodes to exactly the input (the encoding of a
// valid file is unique).
func FuzzReadParams(f *testing.F) {
	params, _, _ := tpFuzzSeeds(f)
	for _, s := range params {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := ParseParams(data, ReadOptions{AllowDev: true, Workers: 1})
		p3, err3 := ParseParams(data, ReadOptions{AllowDev: true, Workers: 3})
		if (err == nil) != (err3 == nil) || (err != nil && err.Error() != err3.Error()) {
			t.Fatalf("1 worker: %v; 3 workers: %v", err, err3)
		}
		if err != nil {
			return
		}
		defer p.Close()
		defer p3.Close()
		if !p.Equal(p3) {
			t.Fatal("1 and 3 workers decoded different params")
		}
		var buf bytes.Buffer
		if _, err := p.WriteTo(&buf); err != nil {
			t.Fatalf("accepted params do not write: %v", err)
		}
		if !bytes.Equal(buf.Bytes(), data) {
			t.Fatal("accepted params re-encode differently")
		}
		if p.Dev {
			if _, err := ParseParams(data, ReadOptions{}); err != ErrDevParams {
				t.Fatalf("dev params read without AllowDev: %v", err)
			}
		}
	})
}

// FuzzReadVerifyingKey: the strict parser and the stream reader agree, and an accepted
// key re-encodes to exactly the input.
func FuzzReadVerifyingKey(f *testing.F) {
	_, vks, _ := tpFuzzSeeds(f)
	for _, s := range vks {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		vk, err := ParseVerifyingKey(data)
		r := bytes.NewReader(data)
		svk, serr := ReadVerifyingKey(r)
		if err != nil {
			if serr == nil && r.Len() == 0 {
				t.Fatalf("stream reader accepted what the parser refused: %v", err)
			}
			return
		}
		if serr != nil || !svk.Equal(vk) || r.Len() != 0 {
			t.Fatalf("parser accepted, stream reader: %v (left %d bytes)", serr, r.Len())
		}
		var buf bytes.Buffer
		if _, err := vk.WriteTo(&buf); err != nil || !bytes.Equal(buf.Bytes(), data) {
			t.Fatalf("accepted key re-encodes differently (%v)", err)
		}
	})
}

// FuzzDecodeProof: never panics; accepted proofs re-encode to the input; DecodeProofs
// agrees with DecodeProof on single proofs.
func FuzzDecodeProof(f *testing.F) {
	_, _, proofs := tpFuzzSeeds(f)
	for _, s := range proofs {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		ps, err := DecodeProofs(data)
		if len(data) == ProofSize {
			p, err1 := DecodeProof(data)
			if (err == nil) != (err1 == nil) {
				t.Fatalf("DecodeProofs: %v; DecodeProof: %v", err, err1)
			}
			if err1 == nil && p.Bytes() != ps[0].Bytes() {
				t.Fatal("DecodeProof and DecodeProofs disagree")
			}
		}
		if err != nil {
			return
		}
		for i, p := range ps {
			if b := p.Bytes(); !bytes.Equal(b[:], data[i*ProofSize:(i+1)*ProofSize]) {
				t.Fatalf("proof %d re-encodes differently", i)
			}
		}
	})
}
