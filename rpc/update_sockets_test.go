package rpc

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/filecoin-project/go-state-types/abi"

	"github.com/snarkpipe/snarkpipe/prover/groth16"
	"github.com/snarkpipe/snarkpipe/prover/srs/srstest"
	"github.com/snarkpipe/snarkpipe/rpc/api"
	"github.com/snarkpipe/snarkpipe/sealer/refseal"
	"github.com/snarkpipe/snarkpipe/sealer/update"
	"github.com/snarkpipe/snarkpipe/types"
)

// TestReplicaUpdate2OverSockets proves a 2 KiB SnapDeals update (reference updater) through
// the native JSON-RPC API on a real CPU service with dev parameters, and verifies every
// partition proof against the dev VK with public inputs computed from the request's
// commitments alone. Minutes on 2 cores: skipped with -short.
func TestReplicaUpdate2OverSockets(t *testing.T) {
	if testing.Short() {
		t.Skip("2 KiB SnapDeals proof on the CPU: skipped with -short")
	}
	info, err := types.UpdateProof(abi.RegisteredUpdateProof_StackedDrg2KiBV1)
	if err != nil {
		t.Fatal(err)
	}
	u, err := refseal.PatternUpdate(info, 9)
	if err != nil {
		t.Fatal(err)
	}
	vproofs, err := u.EncodedPartitionProofs()
	if err != nil {
		t.Fatal(err)
	}
	parts, err := u.PartitionProofs()
	if err != nil {
		t.Fatal(err)
	}
	req := api.ReplicaUpdateRequest{
		Sector: abi.SectorID{Miner: 1000, Number: 9}, UpdateProofType: info.ID,
		CommROld: u.CommROld[:], CommRNew: u.CommRNew[:], CommDNew: u.CommDNew[:],
		VanillaProofs: vproofs,
	}

	url, _ := serveService(t)
	c := dial(t, url, token(t, api.PermWrite))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	res, err := c.ProveReplicaUpdate2(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if res.Job.State != "done" {
		t.Fatalf("job %+v", res.Job)
	}
	proofs, err := groth16.DecodeProofs(res.Proof)
	if err != nil || len(proofs) != info.PartitionCount {
		t.Fatalf("%d proofs (want %d), %v", len(proofs), info.PartitionCount, err)
	}
	blank, err := update.Blank(update.ConfigFor(info))
	if err != nil {
		t.Fatal(err)
	}
	_, params := srstest.DevParams(t, blank)
	defer params.Close()
	circuits, err := update.Circuits(info, u.CommROld, u.CommDNew, u.CommRNew, parts)
	if err != nil {
		t.Fatal(err)
	}
	for k, circuit := range circuits {
		inputs, err := update.ConfigFor(info).InputVector(&circuit.Public)
		if err != nil {
			t.Fatal(err)
		}
		if err := params.VK.Verify(&proofs[k], inputs); err != nil {
			t.Fatalf("partition %d: %v", k, err)
		}
		for i := range inputs { // each public input changed: must not verify
			var one fr.Element
			one.SetOne()
			inputs[i].Add(&inputs[i], &one)
			if err := params.VK.Verify(&proofs[k], inputs); !errors.Is(err, groth16.ErrInvalidProof) {
				t.Fatalf("partition %d verifies with input %d changed: %v", k, i, err)
			}
			inputs[i].Sub(&inputs[i], &one)
		}
	}
}
