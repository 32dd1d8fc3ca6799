package lotus

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"fmt"

	"github.com/filecoin-project/lotus/storage/sealer/sealtasks"
	"github.com/filecoin-project/lotus/storage/sealer/storiface"
	"github.com/ipfs/go-cid"

	"github.com/snarkpipe/snarkpipe/sealer"
	"github.com/snarkpipe/snarkpipe/types"
)

const methodProveReplicaUpdate2 = "ProveReplicaUpdate2"

// proveReplicaUpdate2 accepts a SnapDeals proof: CallID now, proof through
// ReturnProveReplicaUpdate2, with the same records, retries and error codes as C2
// (async.go).
//
// The vanilla proofs are what the miner got from ProveReplicaUpdate1: filecoin-ffi's
// GenerateUpdateVanillaProofs output, one bincode PartitionProof per partition, passed
// through lotus unchanged (base64 strings in the JSON array). That is exactly the form the
// service decodes, so no conversion happens here.
func (w *roleWorker) proveReplicaUpdate2(sector storiface.SectorRef, sectorKey, newSealed, newUnsealed cid.Cid, vproofs storiface.ReplicaVanillaProofs) (storiface.CallID, error) {
	return w.startCall(sealtasks.TTProveReplicaUpdate2, methodProveReplicaUpdate2, sector.ID, func() ([]byte, *storiface.CallError) {
		req, err := replicaUpdateRequest(sector, sectorKey, newSealed, newUnsealed, vproofs)
		if err != nil {
			return nil, callError(err)
		}
		return w.awaitProof(func(ctx context.Context) (sealer.JobID, error) { return w.prover.SubmitReplicaUpdate2(ctx, req) })
	})
}

// replicaUpdateRequest converts the lotus call as lotus' own worker does
// (ffiwrapper.ProveReplicaUpdate2): the update proof type is the one go-state-types pairs
// with the sector's seal proof, and the commitments are the digests of the sector key
// (old sealed), new sealed and new unsealed CIDs. A CID of the wrong kind is invalid input.
func replicaUpdateRequest(sector storiface.SectorRef, sectorKey, newSealed, newUnsealed cid.Cid, vproofs [][]byte) (*sealer.ReplicaUpdateRequest, error) {
	info, err := types.UpdateProofForSeal(sector.ProofType)
	if err != nil {
		return nil, &sealer.Error{Code: sealer.CodeInvalidInput, Msg: fmt.Sprintf("no update proof for seal proof %d", sector.ProofType), Err: err}
	}
	commROld, err := types.CIDToCommR(sectorKey)
	if err != nil {
		return nil, &sealer.Error{Code: sealer.CodeInvalidInput, ProofType: info.RustName, Msg: "sector key CID", Err: err}
	}
	commRNew, err := types.CIDToCommR(newSealed)
	if err != nil {
		return nil, &sealer.Error{Code: sealer.CodeInvalidInput, ProofType: info.RustName, Msg: "new sealed CID", Err: err}
	}
	commDNew, err := types.CIDToCommD(newUnsealed)
	if err != nil {
		return nil, &sealer.Error{Code: sealer.CodeInvalidInput, ProofType: info.RustName, Msg: "new unsealed CID", Err: err}
	}
	return &sealer.ReplicaUpdateRequest{
		Sector:          sector.ID,
		UpdateProofType: info.ID,
		CommROld:        commROld[:],
		CommRNew:        commRNew[:],
		CommDNew:        commDNew[:],
		VanillaProofs:   vproofs,
		Key:             updateKey(sector, commROld, commRNew, commDNew, vproofs),
	}, nil
}

// updateKey is the service's idempotency key of a ProveReplicaUpdate2: the same sector,
// commitments and vanilla proofs (the miner asking again) join the job in flight or reuse
// its recent proof.
func updateKey(sector storiface.SectorRef, commROld, commRNew, commDNew types.Commitment, vproofs [][]byte) string {
	h := sha256.New()
	h.Write(commROld[:])
	h.Write(commRNew[:])
	h.Write(commDNew[:])
	var n [8]byte
	binary.LittleEndian.PutUint64(n[:], uint64(len(vproofs)))
	h.Write(n[:])
	for _, v := range vproofs {
		binary.LittleEndian.PutUint64(n[:], uint64(len(v)))
		h.Write(n[:])
		h.Write(v)
	}
	return fmt.Sprintf("lotus-pr2-%d-%d-%d-%x", sector.ID.Miner, sector.ID.Number, sector.ProofType, h.Sum(nil)[:16])
}

// updateServable reports whether the service can prove at least one update proof type
// (parameters present, backend allowed): only then does the c2 role advertise
// ProveReplicaUpdate2, so a miner never schedules SnapDeals here that are bound to fail.
func (w *roleWorker) updateServable() bool {
	for _, p := range w.prover.ProofTypes() {
		if p.Kind == "update" && p.Servable { // sealer.ProofTypeStatus.Kind of update proofs
			return true
		}
	}
	return false
}
