package cuzk

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"math"

	"github.com/filecoin-project/go-state-types/abi"

	"github.com/snarkpipe/snarkpipe/rpc/cuzk/cuzkpb"
	"github.com/snarkpipe/snarkpipe/sealer"
	"github.com/snarkpipe/snarkpipe/types"
	"github.com/snarkpipe/snarkpipe/types/vanilla"
)

// randomnessLen is the PoSt challenge seed length (cuzk prover.rs to_array32).
const randomnessLen = 32

// submit validates a SubmitProofRequest against Curio's payload conventions and hands it
// to the service. The request's priority is not forwarded: the service orders jobs by
// kind with the same defaults as cuzk (Winning critical, Window high, PoRep normal).
func submit(ctx context.Context, p Prover, req *cuzkpb.SubmitProofRequest) (sealer.JobID, error) {
	if req == nil {
		return "", invalidArgument("missing submit request")
	}
	switch req.GetProofKind() {
	case cuzkpb.ProofKind_POREP_SEAL_COMMIT:
		sreq, err := sealCommit2Request(req)
		if err != nil {
			return "", err
		}
		return p.SubmitSealCommit2(ctx, sreq)
	case cuzkpb.ProofKind_WINNING_POST:
		preq, err := postRequest(req, types.PoStWinning)
		if err != nil {
			return "", err
		}
		return p.SubmitWinningPoSt(ctx, preq)
	case cuzkpb.ProofKind_WINDOW_POST_PARTITION:
		preq, err := postRequest(req, types.PoStWindow)
		if err != nil {
			return "", err
		}
		return p.SubmitWindowPoSt(ctx, preq)
	case cuzkpb.ProofKind_SNAP_DEALS_UPDATE:
		ureq, err := replicaUpdateRequest(req)
		if err != nil {
			return "", err
		}
		return p.SubmitReplicaUpdate2(ctx, ureq)
	}
	return "", invalidArgument("invalid proof_kind %d", req.GetProofKind())
}

// sealCommit2Request unwraps the C1 output. The wrapper's sector number and size must
// agree with the request's fields and the registered proof: cuzk proves with the request's
// sector number and ignores the wrapper's, so a disagreement is a caller bug best caught here.
func sealCommit2Request(req *cuzkpb.SubmitProofRequest) (*sealer.SealCommit2Request, error) {
	if len(req.GetVanillaProof()) == 0 {
		return nil, invalidArgument("PoRep request without vanilla_proof (the C1 wrapper JSON)")
	}
	w, err := vanilla.DecodeCommit2In(req.GetVanillaProof())
	if err != nil {
		return nil, invalidArgument("vanilla_proof: %v", err)
	}
	rp := req.GetRegisteredProof()
	if rp > math.MaxInt64 {
		return nil, invalidArgument("registered_proof %d out of range", rp)
	}
	proofType := abi.RegisteredSealProof(rp)
	if info, err := types.SealProof(proofType); err == nil {
		if err := sameSize(req.GetSectorSize(), info.SectorSize); err != nil {
			return nil, err
		}
		if w.SectorSize != info.SectorSize {
			return nil, invalidArgument("C1 wrapper SectorSize %d, registered proof %s has %d", w.SectorSize, info.RustName, info.SectorSize)
		}
	} // an unknown proof type is reported by the service, with its own message
	if w.SectorNum < 0 || uint64(w.SectorNum) != req.GetSectorNumber() {
		return nil, invalidArgument("C1 wrapper SectorNum %d differs from sector_number %d", w.SectorNum, req.GetSectorNumber())
	}
	return &sealer.SealCommit2Request{
		Sector:    abi.SectorID{Miner: abi.ActorID(req.GetMinerId()), Number: abi.SectorNumber(req.GetSectorNumber())},
		ProofType: proofType,
		C1:        w.Phase1Out,
		Key:       idempotencyKey(req),
	}, nil
}

// postRequest checks a Winning or Window PoSt request. The vanilla proofs are decoded and
// verified by the service.
func postRequest(req *cuzkpb.SubmitProofRequest, kind types.PoStKind) (*sealer.PoStRequest, error) {
	rp := req.GetRegisteredProof()
	if rp > math.MaxInt64 {
		return nil, invalidArgument("registered_proof %d out of range", rp)
	}
	proofType := abi.RegisteredPoStProof(rp)
	info, err := types.PoStProof(proofType)
	if err != nil {
		return nil, invalidArgument("registered_proof %d: %v", rp, err)
	}
	if info.Kind != kind {
		return nil, invalidArgument("registered_proof %d is %s, the request is %s", rp, info.RustName, kind)
	}
	if err := sameSize(req.GetSectorSize(), info.SectorSize); err != nil {
		return nil, err
	}
	if n := len(req.GetRandomness()); n != randomnessLen {
		return nil, invalidArgument("randomness must be exactly %d bytes, got %d", randomnessLen, n)
	}
	if len(req.GetVanillaProofs()) == 0 {
		return nil, invalidArgument("PoSt request without vanilla_proofs")
	}
	if kind == types.PoStWinning && req.GetPartitionIndex() != 0 {
		return nil, invalidArgument("winning PoSt with partition_index %d", req.GetPartitionIndex())
	}
	return &sealer.PoStRequest{
		ProofType:     proofType,
		Miner:         abi.ActorID(req.GetMinerId()),
		Randomness:    req.GetRandomness(),
		VanillaProofs: req.GetVanillaProofs(),
		Partition:     int(req.GetPartitionIndex()),
		Key:           idempotencyKey(req),
	}, nil
}

// replicaUpdateRequest checks a SnapDeals request: a registered update proof (0–4) whose
// sector size agrees with sector_size when set, raw 32-byte commitments (Curio sends
// commcid-decoded digests, not CIDs) and vanilla proofs, one bincode PartitionProof per
// partition (their count, decoding and native verification are the service's).
func replicaUpdateRequest(req *cuzkpb.SubmitProofRequest) (*sealer.ReplicaUpdateRequest, error) {
	rp := req.GetRegisteredProof()
	if rp > math.MaxInt64 {
		return nil, invalidArgument("registered_proof %d out of range", rp)
	}
	info, err := types.UpdateProof(abi.RegisteredUpdateProof(rp))
	if err != nil {
		return nil, invalidArgument("registered_proof %d: %v", rp, err)
	}
	if err := sameSize(req.GetSectorSize(), info.SectorSize); err != nil {
		return nil, err
	}
	for _, c := range []struct {
		name string
		b    []byte
	}{{"comm_r_old", req.GetCommROld()}, {"comm_r_new", req.GetCommRNew()}, {"comm_d_new", req.GetCommDNew()}} {
		if len(c.b) != 32 {
			return nil, invalidArgument("%s must be exactly 32 bytes, got %d", c.name, len(c.b))
		}
	}
	if len(req.GetVanillaProofs()) == 0 {
		return nil, invalidArgument("SnapDeals request without vanilla_proofs")
	}
	return &sealer.ReplicaUpdateRequest{
		Sector:          abi.SectorID{Miner: abi.ActorID(req.GetMinerId()), Number: abi.SectorNumber(req.GetSectorNumber())},
		UpdateProofType: abi.RegisteredUpdateProof(rp),
		CommROld:        req.GetCommROld(),
		CommRNew:        req.GetCommRNew(),
		CommDNew:        req.GetCommDNew(),
		VanillaProofs:   req.GetVanillaProofs(),
		Key:             idempotencyKey(req),
	}, nil
}

// sameSize accepts an unset sector_size (0) or the proof type's own.
func sameSize(got, want uint64) error {
	if got != 0 && got != want {
		return invalidArgument("sector_size %d, the registered proof's sectors are %d bytes", got, want)
	}
	return nil
}

// idempotencyKey is the service's key for a request: its request_id qualified by a digest
// of everything the proof depends on. A retry of the same request joins the running (or
// recently finished) job, as cuzk's request_id promises; a request that reuses a
// request_id with other inputs (Curio names PoRep jobs porep-<miner>-<sector> whatever the
// C1 output) is proved afresh instead of being answered with a stale proof. Without a
// request_id there is no deduplication.
func idempotencyKey(req *cuzkpb.SubmitProofRequest) string {
	if req.GetRequestId() == "" {
		return ""
	}
	h := sha256.New()
	var n [8]byte
	field := func(b []byte) {
		binary.LittleEndian.PutUint64(n[:], uint64(len(b)))
		h.Write(n[:])
		h.Write(b)
	}
	num := func(v uint64) {
		binary.LittleEndian.PutUint64(n[:], v)
		h.Write(n[:])
	}
	num(uint64(req.GetProofKind()))
	num(req.GetRegisteredProof())
	num(req.GetSectorNumber())
	num(req.GetMinerId())
	num(uint64(req.GetPartitionIndex()))
	field(req.GetRandomness())
	field(req.GetVanillaProof())
	num(uint64(len(req.GetVanillaProofs())))
	for _, v := range req.GetVanillaProofs() {
		field(v)
	}
	field(req.GetCommROld())
	field(req.GetCommRNew())
	field(req.GetCommDNew())
	return req.GetRequestId() + "#" + hex.EncodeToString(h.Sum(nil)[:12])
}
