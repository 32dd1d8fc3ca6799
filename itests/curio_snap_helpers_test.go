package itests

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/filecoin-project/go-state-types/abi"

	"github.com/snarkpipe/snarkpipe/prover/groth16"
	"github.com/snarkpipe/snarkpipe/prover/r1cs"
	"github.com/snarkpipe/snarkpipe/prover/srs"
	"github.com/snarkpipe/snarkpipe/prover/srs/srstest"
	"github.com/snarkpipe/snarkpipe/rpc/cuzk/cuzkpb"
	"github.com/snarkpipe/snarkpipe/sealer/refseal"
	"github.com/snarkpipe/snarkpipe/sealer/update"
	"github.com/snarkpipe/snarkpipe/types"
	"github.com/snarkpipe/snarkpipe/types/vanilla"
)

// snapUpdate2KiB is a 2 KiB SnapDeals update made by the reference updater: new data
// encoded into an old replica, with its vanilla partition proofs (bincode, what Curio
// reads from storage and sends as vanilla_proofs).
type snapUpdate2KiB struct {
	u      *refseal.SectorUpdate
	sector abi.SectorID
	proofs [][]byte
}

func newSnapUpdate2KiB(t testing.TB) *snapUpdate2KiB {
	t.Helper()
	info, err := types.UpdateProof(abi.RegisteredUpdateProof_StackedDrg2KiBV1)
	if err != nil {
		t.Fatal(err)
	}
	u, err := refseal.PatternUpdate(info, 3)
	if err != nil {
		t.Fatal(err)
	}
	proofs, err := u.EncodedPartitionProofs()
	if err != nil {
		t.Fatal(err)
	}
	s := &snapUpdate2KiB{u: u, sector: abi.SectorID{Miner: 1000, Number: 42}, proofs: proofs}
	return s
}

// curioSnap is the request ProveUpdateCuzk sends: raw 32-byte commitments (decoded from
// the CIDs), one vanilla proof per partition, request id snap-<miner>-<sector>.
func (s *snapUpdate2KiB) curioSnap() *cuzkpb.SubmitProofRequest {
	return &cuzkpb.SubmitProofRequest{
		RequestId: fmt.Sprintf("snap-%d-%d", s.sector.Miner, s.sector.Number),
		ProofKind: cuzkpb.ProofKind_SNAP_DEALS_UPDATE, SectorSize: s.u.Info.SectorSize,
		RegisteredProof: uint64(s.u.Info.ID), Priority: cuzkpb.Priority_NORMAL,
		VanillaProofs: s.proofs, SectorNumber: uint64(s.sector.Number), MinerId: uint64(s.sector.Miner),
		CommROld: s.u.CommROld[:], CommRNew: s.u.CommRNew[:], CommDNew: s.u.CommDNew[:],
	}
}

// verify checks the update proof (192 bytes per partition) against the dev verifying key
// in the shared test cache and public inputs computed from the commitments and vanilla
// proofs, as the chain would.
func (s *snapUpdate2KiB) verify(t testing.TB, proof []byte) error {
	t.Helper()
	info := s.u.Info
	proofs, err := groth16.DecodeProofs(proof)
	if err != nil {
		return err
	}
	if len(proofs) != info.PartitionCount {
		return fmt.Errorf("%d partition proofs, want %d", len(proofs), info.PartitionCount)
	}
	parts, err := vanilla.DecodeUpdatePartitionProofs(info, s.proofs)
	if err != nil {
		return err
	}
	circuits, err := update.Circuits(info, s.u.CommROld, s.u.CommDNew, s.u.CommRNew, parts)
	if err != nil {
		return err
	}
	vk := updateVerifyingKey(t, info)
	for k, c := range circuits {
		inputs, err := update.ConfigFor(info).InputVector(&c.Public)
		if err != nil {
			return err
		}
		if err := vk.Verify(&proofs[k], inputs); err != nil {
			return fmt.Errorf("partition %d: %w", k, err)
		}
	}
	return nil
}

// updateVerifyingKey reads the verifying key at the head of the update circuit's dev
// parameter file in the shared test cache (the daemons prove with that file).
func updateVerifyingKey(t testing.TB, info *types.UpdateProofInfo) *groth16.VerifyingKey {
	t.Helper()
	blank, err := update.Blank(update.ConfigFor(info))
	if err != nil {
		t.Fatal(err)
	}
	rec := r1cs.NewRecorder(r1cs.Capacity{})
	if err := blank.Synthesize(rec); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(srstest.Cache(t).Dir, srs.DevParamsName(rec.Finish()))
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("dev parameters of %s: %v", info.CircuitID, err)
	}
	defer f.Close()
	vk, err := groth16.ReadVerifyingKey(bufio.NewReaderSize(f, 1<<20))
	if err != nil {
		t.Fatalf("verifying key in %s: %v", path, err)
	}
	return vk
}
