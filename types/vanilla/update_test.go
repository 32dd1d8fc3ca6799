package vanilla

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/snarkpipe/snarkpipe/types"
)

func updateInfo(t testing.TB, id int) *types.UpdateProofInfo {
	t.Helper()
	info, err := types.UpdateProof(types.RegisteredUpdateProof(id))
	if err != nil {
		t.Fatal(err)
	}
	return info
}

// syntheticMerkle returns a proof shaped like d with distinct filler values.
func syntheticMerkle(d TreeDepth, fill byte) MerkleProof {
	level := func(arity int) PathElement {
		e := PathElement{Index: uint64(fill) % uint64(arity)}
		for j := range arity - 1 {
			e.Hashes = append(e.Hashes, Domain{fill, byte(j)})
		}
		return e
	}
	p := MerkleProof{Kind: d.Kind, Root: Domain{fill, 0xee}, Leaf: Domain{fill, 0xff}}
	for range d.BaseLevels {
		p.Base = append(p.Base, level(d.Shape.Base))
	}
	if d.Kind >= ProofSub {
		p.Sub = []PathElement{level(d.Shape.Sub)}
	}
	if d.Kind == ProofTop {
		p.Top = []PathElement{level(d.Shape.Top)}
	}
	return p
}

// syntheticUpdateProof is a partition proof with the exact shape of info and filler values.
func syntheticUpdateProof(info *types.UpdateProofInfo) *UpdatePartitionProof {
	p := &UpdatePartitionProof{CommC: Domain{1, 2, 3}, ApexLeaves: make([]Domain, info.ApexLeafCount)}
	for i := range p.ApexLeaves {
		p.ApexLeaves[i] = Domain{byte(i), 0xaa}
	}
	tr, td := TreeRDepth(info.SectorShape), TreeDDepth(info.SectorShape)
	p.ChallengeProofs = make([]UpdateChallengeProof, info.ChallengesPerPartition)
	for i := range p.ChallengeProofs {
		p.ChallengeProofs[i] = UpdateChallengeProof{ROld: syntheticMerkle(tr, byte(3*i)), DNew: syntheticMerkle(td, byte(3*i+1)), RNew: syntheticMerkle(tr, byte(3*i+2))}
	}
	return p
}

// TestUpdatePartitionProofRoundTrip: for every update type a proof of its exact shape
// encodes, decodes back to the same bytes and validates; the bincode layout is comm_c,
// Vec apex_leafs, Vec challenge proofs (r_old, d_new, r_new).
func TestUpdatePartitionProofRoundTrip(t *testing.T) {
	for id := range 5 {
		info := updateInfo(t, id)
		p := syntheticUpdateProof(info)
		enc := EncodeUpdatePartitionProof(p)
		if !bytes.Equal(enc[:32], p.CommC[:]) || enc[32] != byte(info.ApexLeafCount) {
			t.Fatalf("%s: layout does not start with comm_c and the apex leaf count", info.RustName)
		}
		got, err := DecodeUpdatePartitionProofFor(info, enc)
		if err != nil {
			t.Fatalf("%s: %v", info.RustName, err)
		}
		if !bytes.Equal(EncodeUpdatePartitionProof(got), enc) {
			t.Fatalf("%s: re-encoding differs", info.RustName)
		}
		if _, err := DecodeUpdatePartitionProof(append(enc, 0)); !errors.Is(err, ErrMalformed) {
			t.Errorf("%s: trailing byte: %v", info.RustName, err)
		}
		if _, err := DecodeUpdatePartitionProof(enc[:len(enc)-1]); !errors.Is(err, ErrMalformed) {
			t.Errorf("%s: truncated: %v", info.RustName, err)
		}
	}
}

// TestUpdatePartitionProofShapeErrors: well-formed proofs of the wrong shape are refused
// with ErrShape, and a list of the wrong partition count too.
func TestUpdatePartitionProofShapeErrors(t *testing.T) {
	info := updateInfo(t, 1) // 8 MiB: 4 partitions, 10 challenges, 128 apex leaves
	cases := map[string]func(p *UpdatePartitionProof){
		"apex leaves":  func(p *UpdatePartitionProof) { p.ApexLeaves = p.ApexLeaves[:64] },
		"challenges":   func(p *UpdatePartitionProof) { p.ChallengeProofs = p.ChallengeProofs[:9] },
		"tree D depth": func(p *UpdatePartitionProof) { p.ChallengeProofs[2].DNew.Base = p.ChallengeProofs[2].DNew.Base[1:] },
		"tree R kind":  func(p *UpdatePartitionProof) { p.ChallengeProofs[0].RNew.Kind = ProofSub },
	}
	for name, corrupt := range cases {
		p := syntheticUpdateProof(info)
		corrupt(p)
		if _, err := DecodeUpdatePartitionProofFor(info, EncodeUpdatePartitionProof(p)); !errors.Is(err, ErrShape) {
			t.Errorf("%s: %v, want ErrShape", name, err)
		}
	}
	good := EncodeUpdatePartitionProof(syntheticUpdateProof(info))
	if _, err := DecodeUpdatePartitionProofs(info, [][]byte{good, good, good}); !errors.Is(err, ErrShape) {
		t.Errorf("3 of 4 partitions: %v, want ErrShape", err)
	}
	list, err := DecodeUpdatePartitionProofs(info, [][]byte{good, good, good, good})
	if err != nil || len(list) != 4 {
		t.Errorf("4 partitions: %d, %v", len(list), err)
	}
	if _, err := DecodeUpdatePartitionProofs(info, make([][]byte, 17)); !errors.Is(err, ErrLimit) {
		t.Errorf("17 partitions: %v, want ErrLimit", err)
	}
	// A forged apex-leaf count fails before allocating.
	forged := append([]byte(nil), good...)
	forged[32+7] = 0x7f
	if _, err := DecodeUpdatePartitionProof(forged); !errors.Is(err, ErrLimit) {
		t.Errorf("forged count: %v, want ErrLimit", err)
	}
}

// FuzzDecodeUpdatePartitionProof: no input panics, and whatever decodes re-encodes to the
// input (the bincode layout is canonical); validation of a decoded value never panics.
func FuzzDecodeUpdatePartitionProof(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := DecodeUpdatePartitionProof(data)
		if err != nil {
			return
		}
		for id := range 5 {
			_ = p.Validate(&types.UpdateProofs()[id])
		}
		if !bytes.Equal(EncodeUpdatePartitionProof(p), data) {
			t.Fatal("bincode re-encoding differs from the input")
		}
	})
}

// TestWriteUpdateFuzzSeeds writes the update seeds with -write-seeds (the flag of
// TestWriteFuzzSeeds); without it, it checks they exist.
func TestWriteUpdateFuzzSeeds(t *testing.T) {
	small := syntheticUpdateProof(updateInfo(t, 0))
	small.ChallengeProofs = small.ChallengeProofs[:1]
	seeds := [][]byte{EncodeUpdatePartitionProof(small), EncodeUpdatePartitionProof(&UpdatePartitionProof{}), make([]byte, 48)}
	dir := filepath.Join("testdata", "fuzz", "FuzzDecodeUpdatePartitionProof")
	if !*writeSeeds {
		if entries, err := os.ReadDir(dir); err != nil || len(entries) == 0 {
			t.Errorf("no seed corpus in %s", dir)
		}
		return
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for i, seed := range seeds {
		body := fmt.Sprintf("go test fuzz v1\n[]byte(%q)\n", seed)
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("seed-%d", i)), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
