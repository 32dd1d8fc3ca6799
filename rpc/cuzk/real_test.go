package cuzk

import (
	"context"
	"testing"
	"time"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/filecoin-project/go-state-types/abi"

	"github.com/snarkpipe/snarkpipe/prover/groth16"
	"github.com/snarkpipe/snarkpipe/prover/srs/srstest"
	"github.com/snarkpipe/snarkpipe/rpc/cuzk/cuzkpb"
	"github.com/snarkpipe/snarkpipe/sealer"
	"github.com/snarkpipe/snarkpipe/sealer/porep"
	"github.com/snarkpipe/snarkpipe/sealer/post"
	"github.com/snarkpipe/snarkpipe/sealer/refseal"
	"github.com/snarkpipe/snarkpipe/sealer/sealertest"
	"github.com/snarkpipe/snarkpipe/types"
	"github.com/snarkpipe/snarkpipe/types/vanilla"
)

// newRealService is a sealer.Service over a CPU pipeline with dev parameters from the
// shared test cache.
func newRealService(t *testing.T) *sealer.Service {
	s, _ := sealertest.CPUService(t, sealer.DefaultConfig(), sealer.Deps{})
	return s
}

// TestCurioPoStRealService runs Curio's Winning (CRITICAL) and Window (HIGH) PoSt calls
// over a unix socket against the real service with a 2 KiB sector sealed by the
// reference sealer, and verifies the returned proofs against the dev verifying keys and
// public inputs computed here. Skipped with -short: it proves two PoSt circuits on the
// CPU (and builds their dev parameters on a cold cache).
func TestCurioPoStRealService(t *testing.T) {
	if testing.Short() {
		t.Skip("proves 2 KiB PoSt on the CPU: skipped with -short")
	}
	sealInfo, _ := types.SealProof(abi.RegisteredSealProof_StackedDrg2KiBV1_1)
	data := make([]byte, sealInfo.SectorSize)
	for i := range data {
		data[i] = byte(i*13+5) & 0x3f
	}
	sid := abi.SectorID{Miner: 1000, Number: 9}
	sector, err := refseal.Seal(sealInfo, sid, [32]byte{4, 5, 6}, data)
	if err != nil {
		t.Fatal(err)
	}
	rand := seq(32, 100)

	srv := newRealService(t)
	s, err := NewServer(unixConfig(t), srv)
	if err != nil {
		t.Fatal(err)
	}
	l, err := s.Listen()
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = s.Serve(l) }()
	t.Cleanup(func() { s.Stop(time.Second) })
	c := dialCurio(t, s.cfg.Listen, 10)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()

	for _, tc := range []struct {
		kind cuzkpb.ProofKind
		prio cuzkpb.Priority
		pt   abi.RegisteredPoStProof
	}{
		{cuzkpb.ProofKind_WINNING_POST, cuzkpb.Priority_CRITICAL, abi.RegisteredPoStProof_StackedDrgWinning2KiBV1},
		{cuzkpb.ProofKind_WINDOW_POST_PARTITION, cuzkpb.Priority_HIGH, abi.RegisteredPoStProof_StackedDrgWindow2KiBV1_1},
	} {
		info, _ := types.PoStProof(tc.pt)
		v, err := sector.PoStReplica().Vanilla(info, rand, 0)
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		proof, err := c.prove(ctx, &cuzkpb.SubmitProofRequest{
			RequestId: tc.kind.String() + "-1000", ProofKind: tc.kind, SectorSize: info.SectorSize, RegisteredProof: uint64(tc.pt),
			Priority: tc.prio, VanillaProofs: [][]byte{vanilla.EncodePoStSectorProof(v)}, MinerId: 1000, Randomness: rand,
		})
		if err != nil {
			t.Fatalf("%s: %v", tc.kind, err)
		}
		t.Logf("%s proved over gRPC in %v", tc.kind, time.Since(start))
		masked, _ := types.MaskRandomness(rand)
		public, err := post.PublicInputs(info, masked, []post.PublicSector{{ID: v.SectorID, CommR: v.CommR}}, 0)
		if err != nil {
			t.Fatal(err)
		}
		blank, err := post.Blank(post.ConfigFor(info))
		if err != nil {
			t.Fatal(err)
		}
		_, params := srstest.DevParams(t, blank)
		vk := params.VK
		params.Close()
		proofs, err := groth16.DecodeProofs(proof)
		if err != nil || len(proofs) != 1 {
			t.Fatalf("%s: %d proofs, %v", tc.kind, len(proofs), err)
		}
		if err := vk.Verify(&proofs[0], public); err != nil {
			t.Fatalf("%s: proof does not verify: %v", tc.kind, err)
		}
		wrong := append([]fr.Element(nil), public...)
		wrong[0].SetUint64(7)
		if vk.Verify(&proofs[0], wrong) == nil {
			t.Fatalf("%s: proof verifies with a changed public input", tc.kind)
		}
	}

	// A tampered vanilla proof is refused before proving, with the service's message.
	info, _ := types.PoStProof(abi.RegisteredPoStProof_StackedDrgWinning2KiBV1)
	v, _ := sector.PoStReplica().Vanilla(info, rand, 0)
	b := vanilla.EncodePoStSectorProof(v)
	b[len(b)-1] ^= 1
	_, err = c.prove(ctx, &cuzkpb.SubmitProofRequest{
		RequestId: "winpost-bad", ProofKind: cuzkpb.ProofKind_WINNING_POST, RegisteredProof: uint64(info.ID),
		VanillaProofs: [][]byte{b}, MinerId: 1000, Randomness: rand,
	})
	if err == nil {
		t.Fatal("tampered vanilla proof accepted")
	}
	t.Logf("tampered vanilla proof: %v", err)
}

// TestCurioPoRepRealService sends a 2 KiB sector's C1 output the way Curio's
// PoRepSnarkCuzk does (Commit2In wrapper, NORMAL, request_id porep-<miner>-<sector>) to
// the real service and verifies the proof. Skipped with -short: a 2 KiB PoRep proof
// (2.7 M constraints) on the CPU.
func TestCurioPoRepRealService(t *testing.T) {
	if testing.Short() {
		t.Skip("proves a 2 KiB PoRep on the CPU: skipped with -short")
	}
	info, _ := types.SealProof(abi.RegisteredSealProof_StackedDrg2KiBV1_1)
	data := make([]byte, info.SectorSize)
	for i := range data {
		data[i] = byte(i*17+11) & 0x3f
	}
	sid := abi.SectorID{Miner: 1000, Number: 77}
	sector, err := refseal.Seal(info, sid, [32]byte{3, 1, 4}, data)
	if err != nil {
		t.Fatal(err)
	}
	c1, err := sector.C1([32]byte{2, 7, 1})
	if err != nil {
		t.Fatal(err)
	}
	s, err := NewServer(tcpConfig(), newRealService(t))
	if err != nil {
		t.Fatal(err)
	}
	l, err := s.Listen()
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = s.Serve(l) }()
	t.Cleanup(func() { s.Stop(time.Second) })
	c := dialCurio(t, l.Addr().String(), 10)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	start := time.Now()
	proof, err := c.prove(ctx, &cuzkpb.SubmitProofRequest{
		RequestId: "porep-1000-77", ProofKind: cuzkpb.ProofKind_POREP_SEAL_COMMIT, SectorSize: info.SectorSize,
		RegisteredProof: uint64(info.ID), Priority: cuzkpb.Priority_NORMAL,
		VanillaProof: c1Wrapper(t, vanilla.EncodeC1(c1), 77, info.SectorSize), SectorNumber: 77, MinerId: 1000,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("2 KiB C2 over gRPC in %v", time.Since(start))
	public, err := porep.SealPublicInputs(info, c1.ReplicaID, c1.CommD, c1.CommR, c1.Seed, 0)
	if err != nil {
		t.Fatal(err)
	}
	blank, err := porep.Blank(porep.ConfigFor(info))
	if err != nil {
		t.Fatal(err)
	}
	sealertest.VerifyDevProofs(t, blank, proof, [][]fr.Element{public})
}
