package vanilla

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/filecoin-project/go-state-types/abi"
)

// Fuzz targets: no input may panic, and whatever decodes must re-encode to a value that
// decodes to the same encoding (the encoders are canonical). Seeds live in testdata/fuzz;
// `go test -run TestWriteFuzzSeeds -write-seeds` regenerates them from synthetic proofs.

func FuzzDecodeC1(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := DecodeC1(data)
		if err != nil {
			return
		}
		_, _ = c.Validate()
		enc := EncodeC1(c)
		again, err := DecodeC1(enc)
		if err != nil {
			t.Fatalf("re-encoding does not decode: %v", err)
		}
		if !bytes.Equal(EncodeC1(again), enc) {
			t.Fatal("encoding is not canonical")
		}
	})
}

func FuzzDecodePoSt(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := DecodePoStSectorProof(data)
		if err != nil {
			_, _ = DecodePoStSectorProofList(data)
			return
		}
		if !bytes.Equal(EncodePoStSectorProof(p), data) {
			t.Fatal("bincode re-encoding differs from the input")
		}
	})
}

func FuzzDecodeCommit2In(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		w, err := DecodeCommit2In(data)
		if err != nil {
			return
		}
		enc, err := EncodeCommit2In(w)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := DecodeCommit2In(enc); err != nil {
			t.Fatalf("re-encoding does not decode: %v", err)
		}
	})
}

var writeSeeds = flag.Bool("write-seeds", false, "rewrite the fuzz seed corpus in testdata/fuzz")

// TestWriteFuzzSeeds writes small, well-formed seeds for each fuzz target (run with
// -write-seeds). Without the flag it checks that the seed folders exist.
func TestWriteFuzzSeeds(t *testing.T) {
	wrapper, err := EncodeCommit2In(&Commit2In{SectorNum: 1, Phase1Out: []byte(`{"registered_proof":"StackedDrg2KiBV1"}`), SectorSize: 2048})
	if err != nil {
		t.Fatal(err)
	}
	// A small output of one stacked proof with one-level paths, so mutations stay cheap.
	small := syntheticC1(seal(t, abi.RegisteredSealProof_StackedDrg2KiBV1), 2)
	sp := &small.VanillaProofs[0][0]
	sp.CommDProofs.Base, sp.CommRLastProof.Base = sp.CommDProofs.Base[:1], sp.CommRLastProof.Base[:1]
	sp.ReplicaColumnProofs.DrgParents, sp.ReplicaColumnProofs.ExpParents = nil, nil
	sp.LabelingProofs = sp.LabelingProofs[:1]
	sp.LabelingProofs[0].Parents, sp.EncodingProof.Parents = sp.LabelingProofs[0].Parents[:1], nil
	sp.ReplicaColumnProofs.CX.InclusionProof = sp.CommRLastProof
	small.VanillaProofs[0] = small.VanillaProofs[0][:1]
	seeds := map[string][][]byte{
		"FuzzDecodeC1":        {EncodeC1(small), []byte(serdeSingleProof), []byte(`{}`)},
		"FuzzDecodePoSt":      {EncodePoStSectorProof(syntheticPoSt(post(t, abi.RegisteredPoStProof_StackedDrgWindow2KiBV1), 1)), make([]byte, 48)},
		"FuzzDecodeCommit2In": {wrapper, []byte(`{"SectorNum":1}`)},
	}
	for target, list := range seeds {
		dir := filepath.Join("testdata", "fuzz", target)
		if !*writeSeeds {
			if entries, err := os.ReadDir(dir); err != nil || len(entries) == 0 {
				t.Errorf("no seed corpus in %s", dir)
			}
			continue
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for i, seed := range list {
			body := fmt.Sprintf("go test fuzz v1\n[]byte(%q)\n", seed)
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("seed-%d", i)), []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}
