package sealer_test

import (
	"errors"
	"testing"

	"github.com/filecoin-project/go-state-types/abi"

	"github.com/snarkpipe/snarkpipe/sealer"
	"github.com/snarkpipe/snarkpipe/sealer/refseal"
	"github.com/snarkpipe/snarkpipe/types"
	"github.com/snarkpipe/snarkpipe/types/vanilla"
)

func sealed2KiB(t *testing.T, id abi.RegisteredSealProof) (*vanilla.SealCommitPhase1Output, abi.SectorID) {
	t.Helper()
	info, err := types.SealProof(id)
	if err != nil {
		t.Fatal(err)
	}
	data := make([]byte, info.SectorSize)
	for i := range data {
		data[i] = byte(i * 31)
	}
	for i := 31; i < len(data); i += 32 {
		data[i] &= 0x3f
	}
	sid := abi.SectorID{Miner: 1234, Number: 77}
	s, err := refseal.Seal(info, sid, [32]byte{3}, data)
	if err != nil {
		t.Fatal(err)
	}
	c1, err := s.C1([32]byte{5})
	if err != nil {
		t.Fatal(err)
	}
	return c1, sid
}

// fresh returns a deep copy through the codec, so each case mutates its own output.
func fresh(t *testing.T, c1 *vanilla.SealCommitPhase1Output) *vanilla.SealCommitPhase1Output {
	t.Helper()
	out, err := vanilla.DecodeC1(vanilla.EncodeC1(c1))
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestVerifyC1LocatesEachCheck breaks one thing at a time in a valid 2 KiB C1 output and
// expects the check, partition and challenge that catch it.
func TestVerifyC1LocatesEachCheck(t *testing.T) {
	c1, sid := sealed2KiB(t, abi.RegisteredSealProof_StackedDrg2KiBV1_1)
	if _, err := sealer.VerifyC1(c1, &sid); err != nil {
		t.Fatalf("valid C1 rejected: %v", err)
	}
	type mut = func(c *vanilla.SealCommitPhase1Output, sid *abi.SectorID)
	p1 := func(c *vanilla.SealCommitPhase1Output) *vanilla.StackedProof { return &c.VanillaProofs[0][1] }
	cases := []struct {
		name      string
		mutate    mut
		check     sealer.Check
		challenge int
	}{
		{"other sector", func(c *vanilla.SealCommitPhase1Output, sid *abi.SectorID) { sid.Number++ }, sealer.CheckReplicaID, -1},
		{"registered proof", func(c *vanilla.SealCommitPhase1Output, _ *abi.SectorID) { c.RegisteredProof = "StackedDrg32GiBV1_1" }, sealer.CheckShape, -1},
		{"comm_r", func(c *vanilla.SealCommitPhase1Output, _ *abi.SectorID) { c.CommR[0] ^= 1 }, sealer.CheckCommR, -1},
		{"non-canonical comm_d", func(c *vanilla.SealCommitPhase1Output, _ *abi.SectorID) { c.CommD[31] = 0xff }, sealer.CheckCanonical, -1},
		{"seed", func(c *vanilla.SealCommitPhase1Output, _ *abi.SectorID) { c.Seed[0] ^= 1 }, sealer.CheckChallenge, 0},
		{"comm_d root", func(c *vanilla.SealCommitPhase1Output, _ *abi.SectorID) { p1(c).CommDProofs.Root[1] ^= 1 }, sealer.CheckRoot, 1},
		{"comm_d sibling", func(c *vanilla.SealCommitPhase1Output, _ *abi.SectorID) { p1(c).CommDProofs.Base[2].Hashes[0][0] ^= 1 }, sealer.CheckPath, 1},
		{"data leaf", func(c *vanilla.SealCommitPhase1Output, _ *abi.SectorID) { p1(c).CommDProofs.Leaf[0] ^= 1 }, sealer.CheckPath, 1},
		{"comm_r_last root", func(c *vanilla.SealCommitPhase1Output, _ *abi.SectorID) { p1(c).CommRLastProof.Root[0] ^= 1 }, sealer.CheckSameRoots, 1},
		{"replica leaf", func(c *vanilla.SealCommitPhase1Output, _ *abi.SectorID) { p1(c).CommRLastProof.Leaf[0] ^= 1 }, sealer.CheckPath, 1},
		{"column index", func(c *vanilla.SealCommitPhase1Output, _ *abi.SectorID) {
			p1(c).ReplicaColumnProofs.DrgParents[2].Index++
		}, sealer.CheckChallenge, 1},
		{"column row", func(c *vanilla.SealCommitPhase1Output, _ *abi.SectorID) {
			p1(c).ReplicaColumnProofs.ExpParents[3].Rows[0][2] ^= 1
		}, sealer.CheckColumnHash, 1},
		{"labeling parent", func(c *vanilla.SealCommitPhase1Output, _ *abi.SectorID) { p1(c).LabelingProofs[1].Parents[20][0] ^= 1 }, sealer.CheckLabelingProof, 1},
		{"labeling node", func(c *vanilla.SealCommitPhase1Output, _ *abi.SectorID) { p1(c).LabelingProofs[0].Node++ }, sealer.CheckLabelingProof, 1},
		{"encoding parent", func(c *vanilla.SealCommitPhase1Output, _ *abi.SectorID) { p1(c).EncodingProof.Parents[0][0] ^= 1 }, sealer.CheckLabelingProof, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := fresh(t, c1)
			s := sid
			tc.mutate(c, &s)
			_, err := sealer.VerifyC1(c, &s)
			ve, ok := sealer.AsVerifyError(err)
			if !ok || !errors.Is(err, sealer.ErrInvalidVanilla) {
				t.Fatalf("want *VerifyError, got %v", err)
			}
			wantPartition := 0
			if tc.challenge < 0 && tc.check != sealer.CheckCommR {
				wantPartition = -1
			}
			if ve.Kind != sealer.KindPoRep || ve.Check != tc.check || ve.Challenge != tc.challenge || ve.Partition != wantPartition {
				t.Fatalf("got %v (%+v); want check %v partition %d challenge %d", ve, ve, tc.check, wantPartition, tc.challenge)
			}
			t.Log(ve)
		})
	}
}
