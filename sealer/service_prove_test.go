package sealer_test

import (
	"context"
	"testing"
	"time"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/filecoin-project/go-state-types/abi"

	"github.com/snarkpipe/snarkpipe/prover"
	"github.com/snarkpipe/snarkpipe/prover/groth16"
	"github.com/snarkpipe/snarkpipe/sealer"
	"github.com/snarkpipe/snarkpipe/sealer/porep"
	"github.com/snarkpipe/snarkpipe/sealer/post"
	"github.com/snarkpipe/snarkpipe/sealer/sealertest"
	"github.com/snarkpipe/snarkpipe/types"
	"github.com/snarkpipe/snarkpipe/types/vanilla"
)

// TestServiceProvesPoSt proves a 2 KiB Winning and Window PoSt through the Service and
// verifies the proofs against public inputs computed independently of the circuits.
func TestServiceProvesPoSt(t *testing.T) {
	sec := newServiceSector(t)
	s, _ := newProvingService(t, sealer.DefaultConfig())
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	for _, tc := range []struct {
		pt     abi.RegisteredPoStProof
		proofs [][]byte
		gen    func(context.Context, *sealer.PoStRequest) (*sealer.PoStResponse, error)
	}{
		{abi.RegisteredPoStProof_StackedDrgWinning2KiBV1, sec.winning, s.GenerateWinningPoSt},
		{abi.RegisteredPoStProof_StackedDrgWindow2KiBV1_1, sec.window, s.GenerateWindowPoSt},
	} {
		start := time.Now()
		resp, err := tc.gen(ctx, &sealer.PoStRequest{ProofType: tc.pt, Miner: sec.id.Miner, Randomness: sec.rnd, VanillaProofs: tc.proofs})
		if err != nil {
			t.Fatalf("%d: %v", tc.pt, err)
		}
		t.Logf("%d: proved in %v", tc.pt, time.Since(start))
		if len(resp.Proofs) != 1 || resp.Proofs[0].PoStProof != tc.pt || len(resp.Proofs[0].ProofBytes) != groth16.ProofSize {
			t.Fatalf("%d: response %+v", tc.pt, resp.Proofs)
		}
		if resp.Job.State != sealer.JobDone || len(resp.Job.Timings) != 1 {
			t.Fatalf("job info %+v", resp.Job)
		}
		info, _ := types.PoStProof(tc.pt)
		v, err := vanilla.DecodePoStSectorProofFor(info, tc.proofs[0])
		if err != nil {
			t.Fatal(err)
		}
		rnd, _ := types.MaskRandomness(sec.rnd)
		public, err := post.PublicInputs(info, rnd, []post.PublicSector{{ID: v.SectorID, CommR: v.CommR}}, 0)
		if err != nil {
			t.Fatal(err)
		}
		blank, err := post.Blank(post.ConfigFor(info))
		if err != nil {
			t.Fatal(err)
		}
		verifyProofBytes(t, blank, resp.Proofs[0].ProofBytes, [][]fr.Element{public})
	}
}

// TestServiceProvesSealCommit2 proves a 2 KiB C2 (2.7 M constraints; dev parameters are
// built once per machine into the shared test cache) and verifies it independently.
func TestServiceProvesSealCommit2(t *testing.T) {
	if testing.Short() {
		t.Skip("2 KiB PoRep proof on the CPU: skipped with -short")
	}
	sec := newServiceSector(t)
	s, _ := newProvingService(t, sealer.DefaultConfig())
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	start := time.Now()
	resp, err := s.SealCommit2(ctx, &sealer.SealCommit2Request{Sector: sec.id, ProofType: abi.RegisteredSealProof_StackedDrg2KiBV1_1, C1: sec.c1})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("C2 proved in %v: %+v", time.Since(start), resp.Job.Timings)
	info, _ := types.SealProof(abi.RegisteredSealProof_StackedDrg2KiBV1_1)
	c1, err := vanilla.DecodeC1(sec.c1)
	if err != nil {
		t.Fatal(err)
	}
	public, err := porep.SealPublicInputs(info, c1.ReplicaID, c1.CommD, c1.CommR, c1.Seed, 0)
	if err != nil {
		t.Fatal(err)
	}
	blank, err := porep.Blank(porep.ConfigFor(info))
	if err != nil {
		t.Fatal(err)
	}
	verifyProofBytes(t, blank, resp.Proof, [][]fr.Element{public})
}

// verifyProofBytes checks concatenated proofs against the dev verifying key of the circuit.
func verifyProofBytes(t *testing.T, c prover.Circuit, b []byte, public [][]fr.Element) {
	t.Helper()
	sealertest.VerifyDevProofs(t, c, b, public)
}
