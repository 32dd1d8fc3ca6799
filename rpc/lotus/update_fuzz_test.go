package lotus

import (
	"bytes"
	"errors"
	"testing"

	"github.com/filecoin-project/go-state-types/abi"
	"github.com/filecoin-project/lotus/storage/sealer/storiface"
	"github.com/ipfs/go-cid"

	"github.com/snarkpipe/snarkpipe/sealer"
	"github.com/snarkpipe/snarkpipe/types"
)

// FuzzReplicaUpdateRequest: whatever seal proof and CIDs a ProveReplicaUpdate2 carries, the
// conversion never panics; it either refuses with a permanent invalid-input error or
// yields the update proof of the sector's size and the CIDs' 32-byte digests.
func FuzzReplicaUpdateRequest(f *testing.F) {
	var c [32]byte
	for i := range c {
		c[i] = byte(i)
	}
	sealed, _ := types.CommRToCID(c)
	unsealed, _ := types.CommDToCID(c)
	f.Add(int64(abi.RegisteredSealProof_StackedDrg2KiBV1_1), sealed.Bytes(), sealed.Bytes(), unsealed.Bytes())
	f.Add(int64(abi.RegisteredSealProof_StackedDrg32GiBV1_1_Feat_SyntheticPoRep), sealed.Bytes(), sealed.Bytes(), unsealed.Bytes())
	f.Add(int64(99), unsealed.Bytes(), sealed.Bytes(), sealed.Bytes())
	f.Add(int64(-1), []byte{}, []byte{1}, []byte{0x01, 0x55, 0x00})
	f.Fuzz(func(t *testing.T, proofType int64, key, newSealed, newUnsealed []byte) {
		cidOf := func(b []byte) cid.Cid {
			c, err := cid.Cast(b)
			if err != nil {
				return cid.Undef
			}
			return c
		}
		sector := storiface.SectorRef{ID: abi.SectorID{Miner: 1000, Number: 1}, ProofType: abi.RegisteredSealProof(proofType)}
		req, err := replicaUpdateRequest(sector, cidOf(key), cidOf(newSealed), cidOf(newUnsealed), [][]byte{{1}})
		if err != nil {
			var e *sealer.Error
			if !errors.As(err, &e) || e.Code != sealer.CodeInvalidInput || sealer.IsTemporary(err) {
				t.Fatalf("refusal %v is not a permanent invalid-input error", err)
			}
			return
		}
		info, err := types.UpdateProofForSeal(sector.ProofType)
		if err != nil || req.UpdateProofType != info.ID {
			t.Fatalf("update proof %d for seal proof %d (%v)", req.UpdateProofType, proofType, err)
		}
		for _, pair := range []struct {
			got []byte
			c   cid.Cid
		}{{req.CommROld, cidOf(key)}, {req.CommRNew, cidOf(newSealed)}, {req.CommDNew, cidOf(newUnsealed)}} {
			if len(pair.got) != 32 || !bytes.HasSuffix(pair.c.Hash(), pair.got) {
				t.Fatalf("commitment %x from %v", pair.got, pair.c)
			}
		}
	})
}
