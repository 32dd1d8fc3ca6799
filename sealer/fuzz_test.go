package sealer_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/filecoin-project/go-state-types/abi"

	"github.com/snarkpipe/snarkpipe/sealer"
	"github.com/snarkpipe/snarkpipe/sealer/refseal"
	"github.com/snarkpipe/snarkpipe/types"
	"github.com/snarkpipe/snarkpipe/types/vanilla"
)

// FuzzVerifyPoSt feeds arbitrary bytes through the PoSt path (decode, then verify against
// Curio's real public values): it must never panic, and whatever decodes and verifies must
// be the real proof.
func FuzzVerifyPoSt(f *testing.F) {
	raw, err := os.ReadFile(filepath.Join("..", "..", "shared", "testdata", "upstream", "curio-window-post-32GiB.vproof"))
	if err == nil {
		f.Add(raw)
	}
	info, _ := types.PoStProof(abi.RegisteredPoStProof_StackedDrgWindow32GiBV1)
	pub := &sealer.PoStPublic{Proof: info, Randomness: make([]byte, 32), Sectors: []sealer.PoStSector{{Number: 1}}}
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := vanilla.DecodePoStSectorProof(data)
		if err != nil {
			return
		}
		pub.Sectors[0].CommR = types.Commitment(p.CommR)
		if err := sealer.VerifyPoSt(pub, []*vanilla.FallbackPoStSectorProof{p}); err != nil && !errors.Is(err, sealer.ErrInvalidVanilla) {
			t.Fatalf("untyped error %v", err)
		}
	})
}

// FuzzVerifyC1 feeds arbitrary JSON through DecodeC1 and VerifyC1: never a panic, and every
// rejection after decoding is a typed VerifyError.
func FuzzVerifyC1(f *testing.F) {
	info, _ := types.SealProof(abi.RegisteredSealProof_StackedDrg2KiBV1_1)
	sid := abi.SectorID{Miner: 1, Number: 2}
	s, err := refseal.Seal(info, sid, [32]byte{1}, make([]byte, info.SectorSize))
	if err != nil {
		f.Fatal(err)
	}
	c1, err := s.C1([32]byte{2})
	if err != nil {
		f.Fatal(err)
	}
	f.Add(vanilla.EncodeC1(c1))
	f.Fuzz(func(t *testing.T, data []byte) {
		out, err := vanilla.DecodeC1(data)
		if err != nil {
			return
		}
		if _, err := sealer.VerifyC1(out, &sid); err != nil && !errors.Is(err, sealer.ErrInvalidVanilla) {
			t.Fatalf("untyped error %v", err)
		}
	})
}
