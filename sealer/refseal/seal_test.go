package refseal

import (
	"encoding/hex"
	"math/rand/v2"
	"testing"

	"github.com/filecoin-project/go-state-types/abi"

	"github.com/snarkpipe/snarkpipe/sealer"
	"github.com/snarkpipe/snarkpipe/types"
	"github.com/snarkpipe/snarkpipe/types/vanilla"
)

// randomData returns size bytes of fr32-padded pseudo-random data.
func randomData(size uint64, seed uint64) []byte {
	rng := rand.New(rand.NewPCG(seed, 7))
	out := make([]byte, size)
	for i := range out {
		out[i] = byte(rng.Uint32())
	}
	for i := 31; i < len(out); i += 32 {
		out[i] &= 0x3f
	}
	return out
}

func TestZeroDataCommD2KiB(t *testing.T) {
	info, _ := types.SealProof(abi.RegisteredSealProof_StackedDrg2KiBV1_1)
	s, err := Seal(info, abi.SectorID{Miner: 1000, Number: 1}, [32]byte{1}, make([]byte, info.SectorSize))
	if err != nil {
		t.Fatal(err)
	}
	const want = "fc7e928296e516faade986b28f92d44a4f24b935485223376a799027bc18f833" // spec §10
	if got := hex.EncodeToString(s.CommD[:]); got != want {
		t.Fatalf("zero 2 KiB comm_d %s, want %s", got, want)
	}
}

// sealProofsOfSize lists the registered seal proofs of one sector size (V1, V1_1,
// synthetic, NI).
func sealProofsOfSize(size uint64) []*types.SealProofInfo {
	var out []*types.SealProofInfo
	for _, p := range types.SealProofs() {
		if p.SectorSize == size {
			info, _ := types.SealProof(p.ID)
			out = append(out, info)
		}
	}
	return out
}

// checkSealAndProofs seals random data with every proof version of the size, and checks
// that the C1 output (after a JSON round trip) and PoSt vanilla proofs verify natively.
func checkSealAndProofs(t *testing.T, size uint64) {
	for _, info := range sealProofsOfSize(size) {
		t.Run(info.RustName, func(t *testing.T) {
			id := abi.SectorID{Miner: 1000, Number: abi.SectorNumber(info.ID) + 3}
			s, err := Seal(info, id, [32]byte{9, byte(info.ID)}, randomData(size, uint64(info.ID)))
			if err != nil {
				t.Fatal(err)
			}
			for _, seed := range [][32]byte{{1}, {0xfe, 2, 3}} {
				c1, err := s.C1(seed)
				if err != nil {
					t.Fatal(err)
				}
				back, err := vanilla.DecodeC1(vanilla.EncodeC1(c1))
				if err != nil {
					t.Fatal(err)
				}
				if _, err := sealer.VerifyC1(back, &id); err != nil {
					t.Fatalf("seed %x: %v", seed[:3], err)
				}
			}
			checkPoStOfSector(t, s)
		})
	}
}

func checkPoStOfSector(t *testing.T, s *Sector) {
	t.Helper()
	rnd := make([]byte, 32)
	rnd[5] = 0xaa
	rnd[31] = 0xff // masked before use
	for _, p := range types.PoStProofs() {
		if p.SectorSize != s.Info.SectorSize {
			continue
		}
		info, _ := types.PoStProof(p.ID)
		v, err := s.PoStReplica().Vanilla(info, rnd, 0)
		if err != nil {
			t.Fatal(err)
		}
		pub := &sealer.PoStPublic{Proof: info, Randomness: rnd, Sectors: []sealer.PoStSector{{Number: s.ID.Number, CommR: types.Commitment(s.CommR)}}}
		if err := sealer.VerifyPoSt(pub, []*vanilla.FallbackPoStSectorProof{v}); err != nil {
			t.Fatalf("%s: %v", info.RustName, err)
		}
	}
}

func TestSeal2KiBAllVersions(t *testing.T) { checkSealAndProofs(t, types.SectorSize2KiB) }

// TestSeal8MiBAllVersions seals four 8 MiB sectors (tens of seconds); skipped under -short.
func TestSeal8MiBAllVersions(t *testing.T) {
	if testing.Short() {
		t.Skip("8 MiB sealing takes tens of seconds; run without -short")
	}
	checkSealAndProofs(t, types.SectorSize8MiB)
}

func TestSealRejectsBadInput(t *testing.T) {
	info, _ := types.SealProof(abi.RegisteredSealProof_StackedDrg2KiBV1_1)
	id := abi.SectorID{Miner: 1, Number: 1}
	if _, err := Seal(info, id, [32]byte{}, make([]byte, 100)); err == nil {
		t.Fatal("short data accepted")
	}
	data := make([]byte, info.SectorSize)
	data[63] = 0x80
	if _, err := Seal(info, id, [32]byte{}, data); err == nil {
		t.Fatal("unpadded node accepted")
	}
	big, _ := types.SealProof(abi.RegisteredSealProof_StackedDrg32GiBV1_1)
	if _, err := Seal(big, id, [32]byte{}, nil); err == nil {
		t.Fatal("32 GiB in-memory seal accepted")
	}
}
