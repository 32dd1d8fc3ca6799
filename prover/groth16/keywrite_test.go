package groth16_test

import (
	"bytes"
	"sync"
	"testing"

	"github.com/snarkpipe/snarkpipe/prover/backend/cpu"
	"github.com/snarkpipe/snarkpipe/prover/groth16"
	"github.com/snarkpipe/snarkpipe/prover/r1cs/r1cstest"
)

// TestWriteParamsStreamsTheKeyBack: a key without host vectors (as one made on a GPU) is
// read back from its backend in chunks (7 points here, so every vector crosses chunk
// boundaries and ends in a partial chunk) and written byte for byte as its parameters
// would be, dev trailer included, at ParamsFileSize bytes; the file reads back to the same
// parameters. A key with host vectors writes them directly; a backend that cannot read
// bases back is refused.
func TestWriteParamsStreamsTheKeyBack(t *testing.T) {
	defer groth16.SetStreamChunkPoints(7)()
	f := setupCircuit(t, &r1cstest.Random{Seed: 33, Constraints: 150, Inputs: 3, Unused: 5}, 41)
	var want bytes.Buffer
	if _, err := f.pk.Params.WriteTo(&want); err != nil {
		t.Fatal(err)
	}
	if int64(want.Len()) != f.pk.Params.FileSize() || f.pk.ParamsFileSize() != f.pk.Params.FileSize() {
		t.Fatalf("sizes: file %d, Params.FileSize %d, ParamsFileSize %d", want.Len(), f.pk.Params.FileSize(), f.pk.ParamsFileSize())
	}
	var direct bytes.Buffer
	if _, err := f.pk.WriteParams(&direct); err != nil || !bytes.Equal(direct.Bytes(), want.Bytes()) {
		t.Fatalf("key with host vectors written differently (%v)", err)
	}

	full := f.pk.Params
	f.pk.Params = &groth16.Params{VK: full.VK, Dev: true} // only the VK on the host
	defer func() { f.pk.Params = full }()
	if f.pk.ParamsFileSize() != int64(want.Len()) {
		t.Fatalf("ParamsFileSize %d without host vectors, file %d", f.pk.ParamsFileSize(), want.Len())
	}
	var got bytes.Buffer
	n, err := f.pk.WriteParams(&got)
	if err != nil {
		t.Fatal(err)
	}
	if n != int64(got.Len()) || !bytes.Equal(got.Bytes(), want.Bytes()) {
		t.Fatalf("streamed file (%d bytes, reported %d) differs from the parameters' (%d bytes)", got.Len(), n, want.Len())
	}
	back, err := groth16.ParseParams(got.Bytes(), groth16.ReadOptions{AllowDev: true})
	if err != nil {
		t.Fatal(err)
	}
	defer back.Close()
	if !back.Equal(full) {
		t.Fatal("streamed file reads back to other parameters")
	}

	cb, _ := cpu.New(cpu.DefaultConfig())
	pk, err := groth16.NewProvingKey(hostEvaluator{cb}, full, f.shape.Counts())
	if err != nil {
		t.Fatal(err)
	}
	pk.Params = &groth16.Params{VK: full.VK, Dev: true}
	if _, err := pk.WriteParams(&bytes.Buffer{}); err == nil {
		t.Fatal("WriteParams on a backend without BasesReader succeeded")
	}
}

// TestReadParamsProgress: the progress hook follows the decode up to every proving-key
// point, and never past the total.
func TestReadParamsProgress(t *testing.T) {
	f := setupCircuit(t, &r1cstest.Random{Seed: 35, Constraints: 120, Inputs: 2, Unused: 3}, 43)
	var buf bytes.Buffer
	if _, err := f.pk.Params.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	p := f.pk.Params
	want := int64(len(p.H) + len(p.L) + len(p.A) + len(p.BG1) + len(p.BG2))
	var mu sync.Mutex
	var last, calls int64
	back, err := groth16.ParseParams(buf.Bytes(), groth16.ReadOptions{AllowDev: true, Progress: func(done, total int64) {
		mu.Lock()
		defer mu.Unlock()
		calls++
		if total != want || done > total {
			t.Errorf("progress %d of %d, want a total of %d", done, total, want)
		}
		last = max(last, done)
	}})
	if err != nil {
		t.Fatal(err)
	}
	back.Close()
	if calls == 0 || last != want {
		t.Fatalf("%d progress calls, last %d of %d", calls, last, want)
	}
}
