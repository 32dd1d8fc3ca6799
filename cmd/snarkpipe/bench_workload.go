package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/filecoin-project/go-state-types/abi"

	"github.com/snarkpipe/snarkpipe/prover"
	"github.com/snarkpipe/snarkpipe/prover/groth16"
	"github.com/snarkpipe/snarkpipe/sealer"
	"github.com/snarkpipe/snarkpipe/sealer/porep"
	"github.com/snarkpipe/snarkpipe/sealer/post"
	"github.com/snarkpipe/snarkpipe/sealer/refseal"
	"github.com/snarkpipe/snarkpipe/sealer/update"
	"github.com/snarkpipe/snarkpipe/types"
	"github.com/snarkpipe/snarkpipe/types/vanilla"
)

// benchSizes are the sector sizes `bench` accepts, by their upstream label.
var benchSizes = []struct {
	label string
	bytes uint64
}{
	{"2KiB", types.SectorSize2KiB}, {"8MiB", types.SectorSize8MiB}, {"512MiB", types.SectorSize512MiB},
	{"32GiB", types.SectorSize32GiB}, {"64GiB", types.SectorSize64GiB},
}

// errBenchSize is a --size that names no production sector size.
var errBenchSize = errors.New("bench: unknown --size")

// parseBenchSize reads a sector size label (2KiB, 8MiB, 512MiB, 32GiB, 64GiB; case-insensitive).
func parseBenchSize(s string) (uint64, error) {
	var labels []string
	for _, z := range benchSizes {
		if strings.EqualFold(s, z.label) {
			return z.bytes, nil
		}
		labels = append(labels, z.label)
	}
	return 0, fmt.Errorf("%w %q: want one of %s", errBenchSize, s, strings.Join(labels, ", "))
}

// workload is one benchmarked proof type with its synthetic inputs: what to submit to the
// Service for one proof, and how to check the proof bytes it returns.
type workload struct {
	kind       string // porep, winning, window, snap
	proofType  string // upstream registered proof name
	circuit    prover.CircuitID
	sectorSize uint64
	// requests is how many Service calls one proof takes (Window: one per partition);
	// partitions is how many partition proofs one request returns.
	requests, partitions int
	blank                prover.Circuit
	// submit queues request r (0 ≤ r < requests) of one proof.
	submit func(ctx context.Context, svc *sealer.Service, r int) (sealer.JobID, error)
	// check verifies a finished request's proof bytes against vk with public inputs
	// derived from the request, when the Service does not (nil: it does).
	check func(res *sealer.JobResult, vk *groth16.VerifyingKey) error
	// checkedBy says how proof bytes are checked beyond the pipeline's per-partition
	// verification.
	checkedBy string
	// notes describe the inputs (shape, how they were made).
	notes []string
}

// buildWorkload makes the synthetic full-shape inputs of kind at sectorSize from seed and
// checks them natively once (the Service then skips its per-request native check, which
// would repeat the same work for every proof).
func buildWorkload(kind string, sectorSize uint64, seed uint64, windowPartitions int) (*workload, error) {
	switch kind {
	case "porep":
		return porepWorkload(sectorSize, seed)
	case "winning", "window":
		return postWorkload(kind, sectorSize, seed, windowPartitions)
	case "snap":
		return snapWorkload(sectorSize, seed)
	}
	return nil, fmt.Errorf("bench: unknown proof kind %q (porep, winning, window or snap)", kind)
}

func sealProofOfSize(sectorSize uint64) (*types.SealProofInfo, error) {
	for _, p := range types.SealProofs() {
		if p.SectorSize == sectorSize && p.Mode == types.ChallengeInteractive && p.APIVersion == types.APIVersion1_1_0 {
			return types.SealProof(p.ID)
		}
	}
	return nil, fmt.Errorf("bench: no interactive V1_1 seal proof for %d bytes", sectorSize)
}

func porepWorkload(sectorSize, seed uint64) (*workload, error) {
	info, err := sealProofOfSize(sectorSize)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	c1, sid, err := refseal.SynthC1(info, seed)
	if err != nil {
		return nil, fmt.Errorf("bench: synthetic C1: %w", err)
	}
	gen := time.Since(start)
	start = time.Now()
	if _, err := sealer.VerifyC1(c1, &sid); err != nil {
		return nil, fmt.Errorf("bench: synthetic C1 does not verify natively (bug): %w", err)
	}
	ver := time.Since(start)
	raw := vanilla.EncodeC1(c1)
	blank, err := porep.Blank(porep.ConfigFor(info))
	if err != nil {
		return nil, err
	}
	return &workload{
		kind: "porep", proofType: info.RustName, circuit: prover.CircuitID(info.CircuitID), sectorSize: sectorSize,
		requests: 1, partitions: info.PartitionCount, blank: blank,
		submit: func(ctx context.Context, svc *sealer.Service, _ int) (sealer.JobID, error) {
			return svc.SubmitSealCommit2(ctx, &sealer.SealCommit2Request{Sector: sid, ProofType: info.ID, C1: raw})
		},
		checkedBy: "service: each partition proof against the benchmark VK with public inputs derived from the C1 output",
		notes: []string{fmt.Sprintf("synthetic C1 (seed %d): %d partitions × %d challenges, %d bytes; generated %s, native check %s",
			seed, info.PartitionCount, info.ChallengesPerPartition, len(raw), fmtDur(gen), fmtDur(ver))},
	}, nil
}

func postProofOfSize(kind types.PoStKind, sectorSize uint64) (*types.PoStProofInfo, error) {
	var best *types.PoStProofInfo
	for _, p := range types.PoStProofs() {
		if p.SectorSize == sectorSize && p.Kind == kind && p.Provable && (best == nil || p.APIVersion >= best.APIVersion) {
			best = &p
		}
	}
	if best == nil {
		return nil, fmt.Errorf("bench: no %s PoSt proof for %d bytes", kind, sectorSize)
	}
	return types.PoStProof(best.ID)
}

func postWorkload(kind string, sectorSize, seed uint64, windowPartitions int) (*workload, error) {
	pk := types.PoStWinning
	if kind == "window" {
		pk = types.PoStWindow
	} else if windowPartitions != 1 {
		return nil, errors.New("bench: --partitions applies to window only")
	}
	if windowPartitions < 1 {
		return nil, fmt.Errorf("bench: --partitions %d < 1", windowPartitions)
	}
	info, err := postProofOfSize(pk, sectorSize)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	sp, err := refseal.SynthPoStProofs(info, seed)
	if err != nil {
		return nil, fmt.Errorf("bench: synthetic PoSt: %w", err)
	}
	gen := time.Since(start)
	start = time.Now()
	pub := &sealer.PoStPublic{Proof: info, Randomness: sp.Randomness, Sectors: sealer.PoStSectorsFromProofs(sp.Proofs)}
	if err := sealer.VerifyPoSt(pub, sp.Proofs); err != nil {
		return nil, fmt.Errorf("bench: synthetic PoSt does not verify natively (bug): %w", err)
	}
	ver := time.Since(start)
	blank, err := post.Blank(post.ConfigFor(info))
	if err != nil {
		return nil, err
	}
	w := &workload{
		kind: kind, proofType: info.RustName, circuit: prover.CircuitID(info.CircuitID), sectorSize: sectorSize,
		requests: windowPartitions, partitions: 1, blank: blank,
		submit: func(ctx context.Context, svc *sealer.Service, _ int) (sealer.JobID, error) {
			req := &sealer.PoStRequest{ProofType: info.ID, Miner: sp.Miner, Randomness: sp.Randomness, Decoded: sp.Proofs}
			if pk == types.PoStWinning {
				return svc.SubmitWinningPoSt(ctx, req)
			}
			return svc.SubmitWindowPoSt(ctx, req)
		},
		checkedBy: "service: the proof against the benchmark VK with public inputs derived from the request",
		notes: []string{fmt.Sprintf("synthetic %s PoSt (seed %d): %d sectors × %d challenges; generated %s, native check %s",
			kind, seed, len(sp.Proofs), info.ChallengesPerSector, fmtDur(gen), fmtDur(ver))},
	}
	if windowPartitions > 1 {
		w.notes = append(w.notes, fmt.Sprintf("one Window proof = %d partition requests, each proving the synthetic sector set (partition 0)", windowPartitions))
	}
	return w, nil
}

func snapWorkload(sectorSize, seed uint64) (*workload, error) {
	var info *types.UpdateProofInfo
	for _, p := range types.UpdateProofs() {
		if p.SectorSize == sectorSize {
			var err error
			if info, err = types.UpdateProof(p.ID); err != nil {
				return nil, err
			}
		}
	}
	if info == nil {
		return nil, fmt.Errorf("bench: no update proof for %d bytes", sectorSize)
	}
	start := time.Now()
	u, err := refseal.SynthUpdate(info, seed)
	if err != nil {
		return nil, fmt.Errorf("bench: synthetic update: %w", err)
	}
	proofs, err := u.PartitionProofs()
	if err != nil {
		return nil, fmt.Errorf("bench: synthetic update proofs: %w", err)
	}
	gen := time.Since(start)
	start = time.Now()
	pub := &sealer.UpdatePublic{Proof: info, CommROld: types.Commitment(u.CommROld), CommDNew: types.Commitment(u.CommDNew),
		CommRNew: types.Commitment(u.CommRNew), H: info.HDefault}
	if err := sealer.VerifyUpdate(pub, proofs); err != nil {
		return nil, fmt.Errorf("bench: synthetic update does not verify natively (bug): %w", err)
	}
	ver := time.Since(start)
	req := &sealer.ReplicaUpdateRequest{
		Sector: abi.SectorID{Miner: abi.ActorID(1000 + seed%1000), Number: abi.SectorNumber(seed)}, UpdateProofType: info.ID,
		CommROld: u.CommROld[:], CommRNew: u.CommRNew[:], CommDNew: u.CommDNew[:],
	}
	for _, p := range proofs {
		req.VanillaProofs = append(req.VanillaProofs, vanilla.EncodeUpdatePartitionProof(p))
	}
	blank, err := update.Blank(update.ConfigFor(info))
	if err != nil {
		return nil, err
	}
	inputs, err := updateInputs(info, u)
	if err != nil {
		return nil, err
	}
	return &workload{
		kind: "snap", proofType: info.RustName, circuit: prover.CircuitID(info.CircuitID), sectorSize: sectorSize,
		requests: 1, partitions: info.PartitionCount, blank: blank,
		submit: func(ctx context.Context, svc *sealer.Service, _ int) (sealer.JobID, error) {
			return svc.SubmitReplicaUpdate2(ctx, req)
		},
		check: func(res *sealer.JobResult, vk *groth16.VerifyingKey) error {
			return verifyProofBytes(res.Proof, inputs, vk)
		},
		checkedBy: "bench: each partition proof against the benchmark VK with public inputs from the commitments (the service has no request-derived check for updates)",
		notes: []string{fmt.Sprintf("synthetic sector update (seed %d): %d partitions × %d challenges, h = %d; generated %s, native check %s",
			seed, info.PartitionCount, info.ChallengesPerPartition, info.HDefault, fmtDur(gen), fmtDur(ver))},
	}, nil
}

// updateInputs derives every partition's public inputs of a sector update from its three
// commitments alone (upstream PublicInputs::to_vec with h = h_default).
func updateInputs(info *types.UpdateProofInfo, u *refseal.SectorUpdate) ([][]fr.Element, error) {
	var comms [3]fr.Element
	for i, c := range [][32]byte{u.CommROld, u.CommDNew, u.CommRNew} {
		v, err := update.CommitmentFr(c)
		if err != nil {
			return nil, err
		}
		comms[i] = v
	}
	cfg := update.ConfigFor(info)
	out := make([][]fr.Element, info.PartitionCount)
	for k := range out {
		in, err := cfg.InputVector(&update.PublicInputs{K: k, H: info.HDefault, CommROld: comms[0], CommDNew: comms[1], CommRNew: comms[2]})
		if err != nil {
			return nil, err
		}
		out[k] = in
	}
	return out, nil
}

// verifyProofBytes decodes concatenated partition proofs and verifies each against vk.
func verifyProofBytes(b []byte, inputs [][]fr.Element, vk *groth16.VerifyingKey) error {
	if vk == nil {
		return errors.New("no verifying key")
	}
	proofs, err := groth16.DecodeProofs(b)
	if err != nil {
		return err
	}
	if len(proofs) != len(inputs) {
		return fmt.Errorf("%d partition proofs, want %d", len(proofs), len(inputs))
	}
	for k := range proofs {
		if err := vk.Verify(&proofs[k], inputs[k]); err != nil {
			return fmt.Errorf("partition %d: %w", k, err)
		}
	}
	return nil
}
