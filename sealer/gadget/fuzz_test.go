package gadget

import (
	"crypto/sha256"
	"errors"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/snarkpipe/snarkpipe/prover/r1cs"
)

// FuzzFrFromBytesLE: any 32 bytes either decode to a value whose repr is the same bytes,
// or are rejected; nothing panics.
func FuzzFrFromBytesLE(f *testing.F) {
	f.Add(make([]byte, 32))
	f.Add([]byte{0x01, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff, 0xfe, 0x5b, 0xfe, 0xff, 0x02, 0xa4, 0xbd, 0x53, 0x05, 0xd8, 0xa1, 0x09, 0x08, 0xd8, 0x39, 0x33, 0x48, 0x7d, 0x9d, 0x29, 0x53, 0xa7, 0xed, 0x73})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) != 32 {
			return
		}
		var b [32]byte
		copy(b[:], data)
		x, err := FrFromBytesLE(&b)
		if err != nil {
			return
		}
		if FrToBytesLE(&x) != b {
			t.Fatalf("round trip of %x failed", b)
		}
	})
}

// FuzzSha256Gadget: the gadget's digest equals crypto/sha256 for arbitrary short
// messages, and the system holds.
func FuzzSha256Gadget(f *testing.F) {
	f.Add([]byte(""))
	f.Add([]byte("abc"))
	f.Add(make([]byte, 56))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 120 {
			return
		}
		chk := r1cs.NewChecker()
		digest, err := Sha256(chk, allocBitsBE(chk, data))
		if err != nil {
			t.Fatal(err)
		}
		if err := chk.Err(); err != nil {
			t.Fatal(err)
		}
		want := sha256.Sum256(data)
		if got := BitsBEToBytes(boolValues(digest)); string(got) != string(want[:]) {
			t.Fatalf("digest %x, want %x", got, want)
		}
	})
}

// FuzzPoRShape: arbitrary shapes, path sizes and indices never panic; the circuit
// rejects exactly the inputs the native twin rejects, and when both accept, the circuit
// is satisfied exactly when the native root equals the claimed root.
func FuzzPoRShape(f *testing.F) {
	f.Add(uint8(8), uint8(0), uint8(0), []byte{7, 7}, uint64(5), false, true)
	f.Add(uint8(8), uint8(8), uint8(2), []byte{7, 7, 1}, uint64(100), true, false)
	f.Add(uint8(2), uint8(0), uint8(0), []byte{1}, uint64(1), false, true)
	f.Add(uint8(6), uint8(3), uint8(0), []byte{}, uint64(0), false, false)
	f.Fuzz(func(t *testing.T, base, sub, top uint8, sizes []byte, index uint64, sha, goodRoot bool) {
		shape := TreeShape{Hasher: TreePoseidon, Base: int(base % 17), Sub: int(sub % 17), Top: int(top % 17)}
		if sha {
			shape = TreeShape{Hasher: TreeSha256, Base: int(base % 3), Sub: int(sub % 3), Top: int(top % 3)}
		}
		if len(sizes) > 4 {
			sizes = sizes[:4]
		}
		path := make([][]fr.Element, len(sizes))
		for i, n := range sizes {
			path[i] = make([]fr.Element, int(n%16))
			for j := range path[i] {
				path[i][j].SetUint64(uint64(i*31 + j))
			}
		}
		var leaf fr.Element
		leaf.SetUint64(index)
		native, nerr := ComputeRoot(shape, leaf, index, path)
		root := native
		if !goodRoot {
			root.SetUint64(12345)
		}
		chk := r1cs.NewChecker()
		p := PoR{Shape: shape, Leaf: RootVal(leaf), LeafIndex: index, Path: path, Root: RootVal(root), Private: true}
		cerr := p.Synthesize(chk)
		if (nerr == nil) != (cerr == nil) {
			t.Fatalf("native err %v, circuit err %v", nerr, cerr)
		}
		if nerr != nil {
			if !errors.Is(nerr, ErrPath) && !errors.Is(nerr, ErrPoseidonArity) {
				t.Fatalf("unexpected error kind: %v", nerr)
			}
			return
		}
		if satisfied := chk.Err() == nil; satisfied != root.Equal(&native) {
			t.Fatalf("satisfied=%v but root matches=%v (%v)", satisfied, root.Equal(&native), chk.Err())
		}
	})
}
