package sealer_test

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"testing"

	"github.com/snarkpipe/snarkpipe/sealer"
	"github.com/snarkpipe/snarkpipe/sealer/refseal"
	"github.com/snarkpipe/snarkpipe/types"
	"github.com/snarkpipe/snarkpipe/types/vanilla"
)

func updateNodes(size uint64, seed string) []byte {
	out := make([]byte, size)
	var ctr [8]byte
	for i := uint64(0); i < size; i += 32 {
		binary.LittleEndian.PutUint64(ctr[:], i)
		h := sha256.Sum256(append([]byte(seed), ctr[:]...))
		h[31] &= 0x3f
		copy(out[i:], h[:])
	}
	return out
}

// refUpdate2KiB is a reference 2 KiB update with its public values and vanilla proofs.
func refUpdate2KiB(t *testing.T) (*sealer.UpdatePublic, []*vanilla.UpdatePartitionProof) {
	t.Helper()
	info, err := types.UpdateProof(0)
	if err != nil {
		t.Fatal(err)
	}
	var commC vanilla.Domain
	copy(commC[:], updateNodes(32, "comm_c"))
	u, err := refseal.Update(info, commC, updateNodes(info.SectorSize, "old"), updateNodes(info.SectorSize, "new"), info.HDefault)
	if err != nil {
		t.Fatal(err)
	}
	proofs, err := u.PartitionProofs()
	if err != nil {
		t.Fatal(err)
	}
	pub := &sealer.UpdatePublic{Proof: info, CommROld: types.Commitment(u.CommROld), CommDNew: types.Commitment(u.CommDNew), CommRNew: types.Commitment(u.CommRNew), H: u.H}
	return pub, proofs
}

func TestVerifyUpdateAcceptsReference(t *testing.T) {
	pub, proofs := refUpdate2KiB(t)
	if err := sealer.VerifyUpdate(pub, proofs); err != nil {
		t.Fatal(err)
	}
}

// TestVerifyUpdateRejectsCorruption: each corruption is refused with a *VerifyError naming
// the failed check (and wrapping ErrInvalidVanilla).
func TestVerifyUpdateRejectsCorruption(t *testing.T) {
	cases := []struct {
		name    string
		corrupt func(pub *sealer.UpdatePublic, p *vanilla.UpdatePartitionProof)
		check   sealer.Check
	}{
		{"comm_c", func(_ *sealer.UpdatePublic, p *vanilla.UpdatePartitionProof) { p.CommC[0] ^= 1 }, sealer.CheckCommR},
		{"comm_r_new", func(pub *sealer.UpdatePublic, _ *vanilla.UpdatePartitionProof) { pub.CommRNew[0] ^= 1 }, sealer.CheckCommR},
		{"comm_d_new", func(pub *sealer.UpdatePublic, _ *vanilla.UpdatePartitionProof) { pub.CommDNew[0] ^= 1 }, sealer.CheckPath},
		{"apex leaf", func(_ *sealer.UpdatePublic, p *vanilla.UpdatePartitionProof) { p.ApexLeaves[2][0] ^= 1 }, sealer.CheckPath},
		{"new replica leaf", func(_ *sealer.UpdatePublic, p *vanilla.UpdatePartitionProof) { p.ChallengeProofs[4].RNew.Leaf[0] ^= 1 }, sealer.CheckPath},
		{"data leaf", func(_ *sealer.UpdatePublic, p *vanilla.UpdatePartitionProof) { p.ChallengeProofs[4].DNew.Leaf[0] ^= 1 }, sealer.CheckPath},
		{"old path sibling", func(_ *sealer.UpdatePublic, p *vanilla.UpdatePartitionProof) {
			p.ChallengeProofs[7].ROld.Base[0].Hashes[3][1] ^= 1
		}, sealer.CheckPath},
		{"opened node", func(_ *sealer.UpdatePublic, p *vanilla.UpdatePartitionProof) {
			e := &p.ChallengeProofs[1].RNew.Base[0]
			e.Index = (e.Index + 1) % 8
		}, sealer.CheckChallenge},
		{"h", func(pub *sealer.UpdatePublic, _ *vanilla.UpdatePartitionProof) { pub.H = 10 }, sealer.CheckShape},
		{"challenge count", func(_ *sealer.UpdatePublic, p *vanilla.UpdatePartitionProof) {
			p.ChallengeProofs = p.ChallengeProofs[:9]
		}, sealer.CheckShape},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			pub, proofs := refUpdate2KiB(t)
			tc.corrupt(pub, proofs[0])
			err := sealer.VerifyUpdate(pub, proofs)
			ve, ok := sealer.AsVerifyError(err)
			if !ok || !errors.Is(err, sealer.ErrInvalidVanilla) {
				t.Fatalf("err = %v, want a *VerifyError", err)
			}
			if ve.Check != tc.check || ve.Kind != sealer.KindUpdate {
				t.Errorf("%v: check %s kind %s, want %s %s", err, ve.Check, ve.Kind, tc.check, sealer.KindUpdate)
			}
		})
	}
	pub, proofs := refUpdate2KiB(t)
	if err := sealer.VerifyUpdate(pub, append(proofs, proofs[0])); err == nil {
		t.Error("two partition proofs for a 2 KiB update accepted")
	}
}

// TestVerifyUpdateSynthetic: synthetic updates (block-constant sectors) pass native
// verification at 2 KiB (all partitions) and at full 32 and 64 GiB shape (partitions 0 and
// 15), and a corrupted one fails.
func TestVerifyUpdateSynthetic(t *testing.T) {
	for _, tc := range []struct {
		id         types.RegisteredUpdateProof
		partitions []int
	}{{0, []int{0}}, {3, []int{0, 15}}, {4, []int{9}}} {
		info, err := types.UpdateProof(tc.id)
		if err != nil {
			t.Fatal(err)
		}
		u, err := refseal.SynthUpdate(info, 7)
		if err != nil {
			t.Fatal(err)
		}
		pub := &sealer.UpdatePublic{Proof: info, CommROld: types.Commitment(u.CommROld), CommDNew: types.Commitment(u.CommDNew), CommRNew: types.Commitment(u.CommRNew), H: u.H}
		for _, k := range tc.partitions {
			p, err := u.PartitionProof(k)
			if err != nil {
				t.Fatal(err)
			}
			if err := sealer.VerifyUpdatePartition(pub, k, p); err != nil {
				t.Fatalf("%s partition %d: %v", info.RustName, k, err)
			}
			p.ChallengeProofs[len(p.ChallengeProofs)-1].DNew.Leaf[3] ^= 1
			if err := sealer.VerifyUpdatePartition(pub, k, p); err == nil {
				t.Fatalf("%s partition %d: corrupted data leaf accepted", info.RustName, k)
			}
		}
	}
}
