package sealer_test

import (
	"context"
	"errors"
	"testing"

	"github.com/filecoin-project/go-state-types/abi"

	"github.com/snarkpipe/snarkpipe/prover"
	"github.com/snarkpipe/snarkpipe/prover/groth16"
	"github.com/snarkpipe/snarkpipe/prover/srs/srstest"
	"github.com/snarkpipe/snarkpipe/sealer"
	"github.com/snarkpipe/snarkpipe/sealer/refseal"
	"github.com/snarkpipe/snarkpipe/sealer/update"
	"github.com/snarkpipe/snarkpipe/types"
	"github.com/snarkpipe/snarkpipe/types/vanilla"
)

// updateRequest is a valid 2 KiB ProveReplicaUpdate2 request from the reference updater.
func updateRequest(t testing.TB) (*sealer.ReplicaUpdateRequest, *refseal.SectorUpdate) {
	t.Helper()
	info, err := types.UpdateProof(abi.RegisteredUpdateProof_StackedDrg2KiBV1)
	if err != nil {
		t.Fatal(err)
	}
	u, err := refseal.PatternUpdate(info, 1)
	if err != nil {
		t.Fatal(err)
	}
	vproofs, err := u.EncodedPartitionProofs()
	if err != nil {
		t.Fatal(err)
	}
	return &sealer.ReplicaUpdateRequest{
		Sector: abi.SectorID{Miner: 1000, Number: 7}, UpdateProofType: info.ID,
		CommROld: u.CommROld[:], CommRNew: u.CommRNew[:], CommDNew: u.CommDNew[:],
		VanillaProofs: vproofs,
	}, u
}

// TestPatternUpdateVerifies: refseal.PatternUpdate gives, per seed, another sector whose
// encoded partition proofs decode and pass native verification.
func TestPatternUpdateVerifies(t *testing.T) {
	info, err := types.UpdateProof(abi.RegisteredUpdateProof_StackedDrg2KiBV1)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[vanilla.Domain]bool{}
	for _, seed := range []byte{0, 1, 200} {
		u, err := refseal.PatternUpdate(info, seed)
		if err != nil {
			t.Fatal(err)
		}
		if seen[u.CommRNew] {
			t.Fatalf("seed %d repeats a sector", seed)
		}
		seen[u.CommRNew] = true
		blobs, err := u.EncodedPartitionProofs()
		if err != nil {
			t.Fatal(err)
		}
		proofs, err := vanilla.DecodeUpdatePartitionProofs(info, blobs)
		if err != nil {
			t.Fatal(err)
		}
		pub := &sealer.UpdatePublic{Proof: info, CommROld: types.Commitment(u.CommROld), CommDNew: types.Commitment(u.CommDNew), CommRNew: types.Commitment(u.CommRNew), H: info.HDefault}
		if err := sealer.VerifyUpdate(pub, proofs); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
	}
}

func TestReplicaUpdateRefusedBeforeProving(t *testing.T) {
	s, err := sealer.New(sealer.DefaultConfig(), sealer.Deps{Prover: refusingProver{t}, Backend: "cpu"})
	if err != nil {
		t.Fatal(err)
	}
	good, u := updateRequest(t)
	// The control: the unedited request passes the native checks the cases below must fail.
	pub := &sealer.UpdatePublic{Proof: u.Info, CommROld: types.Commitment(u.CommROld), CommDNew: types.Commitment(u.CommDNew), CommRNew: types.Commitment(u.CommRNew), H: u.Info.HDefault}
	if err := sealer.VerifyUpdate(pub, mustProofs(t, u)); err != nil {
		t.Fatalf("reference update does not verify: %v", err)
	}
	for _, tc := range []struct {
		name string
		edit func(r *sealer.ReplicaUpdateRequest)
	}{
		{"unknown update proof", func(r *sealer.ReplicaUpdateRequest) { r.UpdateProofType = 42 }},
		{"short comm_d_new", func(r *sealer.ReplicaUpdateRequest) { r.CommDNew = r.CommDNew[:31] }},
		{"other comm_d_new", func(r *sealer.ReplicaUpdateRequest) { r.CommDNew = append([]byte{1}, r.CommDNew[1:]...) }},
		{"swapped comm_r", func(r *sealer.ReplicaUpdateRequest) { r.CommROld, r.CommRNew = r.CommRNew, r.CommROld }},
		{"truncated vanilla", func(r *sealer.ReplicaUpdateRequest) { r.VanillaProofs = [][]byte{r.VanillaProofs[0][:50]} }},
		{"no vanilla", func(r *sealer.ReplicaUpdateRequest) { r.VanillaProofs = nil }},
		{"flipped path byte", func(r *sealer.ReplicaUpdateRequest) {
			v := append([]byte(nil), r.VanillaProofs[0]...)
			v[len(v)/2] ^= 1
			r.VanillaProofs = [][]byte{v}
		}},
	} {
		req := *good
		tc.edit(&req)
		_, err := s.ProveReplicaUpdate2(context.Background(), &req)
		var e *sealer.Error
		if !errors.As(err, &e) || e.Code != sealer.CodeInvalidInput {
			t.Errorf("%s: got %v, want an invalid-input error", tc.name, err)
		}
	}
}

// TestReplicaUpdateProved proves a 2 KiB sector update through the Service on the CPU with
// dev parameters (the first run makes them: minutes on 2 cores) and checks the proof
// against public inputs computed from the request alone.
func TestReplicaUpdateProved(t *testing.T) {
	if testing.Short() {
		t.Skip("2 KiB SnapDeals proof on the CPU: minutes; run without -short")
	}
	s, _ := newProvingService(t, sealer.DefaultConfig())
	req, u := updateRequest(t)
	res, err := s.ProveReplicaUpdate2(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	proofs, err := groth16.DecodeProofs(res.Proof)
	if err != nil || len(proofs) != u.Info.PartitionCount {
		t.Fatalf("%d proofs, %v", len(proofs), err)
	}
	blank, err := update.Blank(update.ConfigFor(u.Info))
	if err != nil {
		t.Fatal(err)
	}
	vk := devVerifyingKeyOf(t, blank)
	circuits, err := update.Circuits(u.Info, u.CommROld, u.CommDNew, u.CommRNew, mustProofs(t, u))
	if err != nil {
		t.Fatal(err)
	}
	for k, c := range circuits {
		inputs, err := update.ConfigFor(u.Info).InputVector(&c.Public)
		if err != nil {
			t.Fatal(err)
		}
		if err := vk.Verify(&proofs[k], inputs); err != nil {
			t.Fatalf("partition %d: %v", k, err)
		}
		inputs[len(inputs)-1].SetUint64(12345)
		if err := vk.Verify(&proofs[k], inputs); !errors.Is(err, groth16.ErrInvalidProof) {
			t.Fatalf("partition %d verifies with a changed input: %v", k, err)
		}
	}
}

func devVerifyingKeyOf(t testing.TB, c prover.Circuit) *groth16.VerifyingKey {
	_, params := srstest.DevParams(t, c)
	vk := params.VK
	params.Close()
	return &vk
}

func mustProofs(t testing.TB, u *refseal.SectorUpdate) []*vanilla.UpdatePartitionProof {
	p, err := u.PartitionProofs()
	if err != nil {
		t.Fatal(err)
	}
	return p
}
