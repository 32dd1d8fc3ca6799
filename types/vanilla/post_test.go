package vanilla

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/filecoin-project/go-state-types/abi"
	"github.com/ipfs/go-cid"
	"github.com/snarkpipe/snarkpipe/types"
)

const upstreamDir = "../../../shared/testdata/upstream"

func readUpstream(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(upstreamDir, name))
	if os.IsNotExist(err) {
		t.Skipf("upstream fixture %s not present (expected under %s)", name, upstreamDir)
	}
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func post(t testing.TB, id abi.RegisteredPoStProof) *types.PoStProofInfo {
	t.Helper()
	info, err := types.PoStProof(id)
	if err != nil {
		t.Fatal(err)
	}
	return info
}

// TestDecodeCurioWindowPoSt decodes Curio's real 32 GiB Window PoSt vanilla proof and checks
// it against its verify info: sector number, comm_r of the sealed CID, the Window 32 GiB
// shape, every inclusion proof rooted at comm_r_last, and a byte-identical re-encoding.
func TestDecodeCurioWindowPoSt(t *testing.T) {
	raw := readUpstream(t, "curio-window-post-32GiB.vproof")
	var pub struct {
		Proofs            []struct{ PoStProof abi.RegisteredPoStProof }
		ChallengedSectors []struct {
			SectorNumber uint64
			SealedCID    cid.Cid
		}
	}
	if err := json.Unmarshal(readUpstream(t, "curio-window-post-32GiB.postpub.json"), &pub); err != nil {
		t.Fatal(err)
	}
	p, err := DecodePoStSectorProof(raw)
	if err != nil {
		t.Fatal(err)
	}
	commR, err := types.CIDToCommR(pub.ChallengedSectors[0].SealedCID)
	if err != nil {
		t.Fatal(err)
	}
	if p.SectorID != pub.ChallengedSectors[0].SectorNumber || p.CommR != Domain(commR) {
		t.Errorf("sector %d comm_r %x; want %d %x", p.SectorID, p.CommR, pub.ChallengedSectors[0].SectorNumber, commR)
	}
	if err := p.Validate(post(t, pub.Proofs[0].PoStProof)); err != nil {
		t.Fatal(err)
	}
	s := p.Sectors[0]
	for i, ip := range s.InclusionProofs {
		if ip.Root != s.CommRLast {
			t.Errorf("inclusion proof %d root %x, comm_r_last %x", i, ip.Root, s.CommRLast)
		}
	}
	if !bytes.Equal(EncodePoStSectorProof(p), raw) {
		t.Error("re-encoding differs")
	}
	// Wrong types: Winning wants 66 challenges, a 64 GiB Window a Top proof.
	for _, id := range []abi.RegisteredPoStProof{abi.RegisteredPoStProof_StackedDrgWinning32GiBV1, abi.RegisteredPoStProof_StackedDrgWindow64GiBV1_1} {
		if err := p.Validate(post(t, id)); !errors.Is(err, ErrShape) {
			t.Errorf("type %d: err = %v", id, err)
		}
	}
	// The list forms.
	list, err := DecodePoStSectorProofs([][]byte{raw, raw})
	if err != nil || len(list) != 2 || list[1].SectorID != 1 {
		t.Fatalf("list of blobs: %v", err)
	}
	vec := append(appendU64(nil, 2), append(append([]byte{}, raw...), raw...)...)
	list, err = DecodePoStSectorProofList(vec)
	if err != nil || len(list) != 2 || list[0].CommR != p.CommR {
		t.Fatalf("bincode vec: %v", err)
	}
}

func TestPoStTruncationsAndForgedLengths(t *testing.T) {
	raw := EncodePoStSectorProof(syntheticPoSt(post(t, abi.RegisteredPoStProof_StackedDrgWindow2KiBV1_1), 1))
	for n := 0; n < len(raw); n++ {
		if _, err := DecodePoStSectorProof(raw[:n]); !errors.Is(err, ErrMalformed) && !errors.Is(err, ErrLimit) {
			t.Fatalf("prefix %d: err = %v", n, err)
		}
	}
	if _, err := DecodePoStSectorProof(append(raw, 0)); !errors.Is(err, ErrMalformed) {
		t.Fatalf("trailing byte: %v", err)
	}
	// Forge the sectors length (offset 40) and the inclusion-proof count (offset 48).
	for _, c := range []struct {
		off  int
		val  uint64
		want error
	}{{40, 1 << 62, ErrLimit}, {40, 2, ErrLimit}, {48, 1 << 40, ErrLimit}, {48, 60, ErrMalformed}} {
		forged := append([]byte{}, raw...)
		copy(forged[c.off:], appendU64(nil, c.val))
		allocated := allocatedBytes(func() { _, _ = DecodePoStSectorProof(forged) })
		if _, err := DecodePoStSectorProof(forged); !errors.Is(err, c.want) {
			t.Errorf("length %d at %d: err = %v, want %v", c.val, c.off, err, c.want)
		}
		if allocated > uint64(4*len(forged)) {
			t.Errorf("length %d at %d: %d bytes allocated for %d bytes of input", c.val, c.off, allocated, len(forged))
		}
	}
	// Unknown Merkle variant (offset 56 is the first proof's tag).
	forged := append([]byte{}, raw...)
	forged[56] = 3
	if _, err := DecodePoStSectorProof(forged); !errors.Is(err, ErrMalformed) {
		t.Errorf("variant 3: %v", err)
	}
}

func TestPoStSyntheticRoundTrip(t *testing.T) {
	for _, id := range []abi.RegisteredPoStProof{abi.RegisteredPoStProof_StackedDrgWinning2KiBV1, abi.RegisteredPoStProof_StackedDrgWindow64GiBV1_1, abi.RegisteredPoStProof_StackedDrgWinning32GiBV1} {
		info := post(t, id)
		enc := EncodePoStSectorProof(syntheticPoSt(info, uint64(id)))
		p, err := DecodePoStSectorProof(enc)
		if err != nil {
			t.Fatalf("%s: %v", info.RustName, err)
		}
		if err := p.Validate(info); err != nil {
			t.Fatalf("%s: %v", info.RustName, err)
		}
		if !bytes.Equal(EncodePoStSectorProof(p), enc) {
			t.Fatalf("%s: re-encoding differs", info.RustName)
		}
	}
}

// allocatedBytes measures the heap bytes f allocates.
func allocatedBytes(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

func TestDecodePoStSectorProofFor(t *testing.T) {
	info := post(t, abi.RegisteredPoStProof_StackedDrgWindow2KiBV1_1)
	good := EncodePoStSectorProof(syntheticPoSt(info, 3))
	if _, err := DecodePoStSectorProofFor(info, good); err != nil {
		t.Fatal(err)
	}
	win := post(t, abi.RegisteredPoStProof_StackedDrgWinning2KiBV1)
	if _, err := DecodePoStSectorProofFor(info, EncodePoStSectorProof(syntheticPoSt(win, 3))); !errors.Is(err, ErrLimit) {
		t.Fatalf("66 inclusion proofs for a Window type: %v", err)
	}
	if _, err := DecodePoStSectorProofFor(win, good); !errors.Is(err, ErrShape) {
		t.Fatalf("10 inclusion proofs for Winning: %v", err)
	}
}
