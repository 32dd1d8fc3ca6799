package lotus

import (
	"context"
	"errors"
	"fmt"

	"github.com/filecoin-project/go-state-types/abi"
	"github.com/filecoin-project/go-state-types/proof"
	"github.com/filecoin-project/lotus/storage/sealer/sealtasks"
	"github.com/filecoin-project/lotus/storage/sealer/storiface"

	"github.com/snarkpipe/snarkpipe/sealer"
)

// generateWindowPoSt fetches every challenged sector's vanilla proof, then proves the
// partition. As lotus' own worker does, a partition with unreadable sectors is not proved:
// the answer lists them in Skipped (no error, no proof) and the miner retries the
// partition without them.
func (w *roleWorker) generateWindowPoSt(ctx context.Context, ppt abi.RegisteredPoStProof, mid abi.ActorID, sectors []storiface.PostSectorChallenge, partition int, randomness abi.PoStRandomness) (storiface.WindowPoStResult, error) {
	if err := w.taskEnabled(sealtasks.TTGenerateWindowPoSt); err != nil {
		return storiface.WindowPoStResult{}, err
	}
	if len(sectors) == 0 {
		return storiface.WindowPoStResult{}, errors.New("lotus: Window PoSt without sectors")
	}
	w.callBegin()
	defer w.callEnd()
	proofs, errs := w.vanilla.fetchAll(ctx, mid, ppt, sectors)
	var skipped []abi.SectorID
	for i, err := range errs {
		if err != nil {
			skipped = append(skipped, abi.SectorID{Miner: mid, Number: sectors[i].SectorNumber})
			w.log.Warn("skipping unreadable sector", "sector", sectors[i].SectorNumber, "partition", partition, "err", err)
		}
	}
	if len(skipped) > 0 {
		return storiface.WindowPoStResult{Skipped: skipped}, nil
	}
	resp, err := w.prover.GenerateWindowPoSt(ctx, &sealer.PoStRequest{ProofType: ppt, Miner: mid, Randomness: randomness, VanillaProofs: proofs, Partition: partition})
	if err != nil {
		return storiface.WindowPoStResult{}, err
	}
	if len(resp.Proofs) != 1 {
		return storiface.WindowPoStResult{}, fmt.Errorf("lotus: service returned %d Window PoSt proofs for one partition", len(resp.Proofs))
	}
	return storiface.WindowPoStResult{PoStProofs: resp.Proofs[0], Skipped: nonNilSectors(resp.Skipped)}, nil
}

// generateWinningPoSt needs every sector: Winning PoSt has no partial answer, so a read
// failure is an error (the miner then misses this round, as with lotus' worker).
func (w *roleWorker) generateWinningPoSt(ctx context.Context, ppt abi.RegisteredPoStProof, mid abi.ActorID, sectors []storiface.PostSectorChallenge, randomness abi.PoStRandomness) ([]proof.PoStProof, error) {
	if err := w.taskEnabled(sealtasks.TTGenerateWinningPoSt); err != nil {
		return nil, err
	}
	if len(sectors) == 0 {
		return nil, errors.New("lotus: Winning PoSt without sectors")
	}
	w.callBegin()
	defer w.callEnd()
	proofs, errs := w.vanilla.fetchAll(ctx, mid, ppt, sectors)
	var failed []error
	for i, err := range errs {
		if err != nil {
			failed = append(failed, fmt.Errorf("winning sector %d: %w", sectors[i].SectorNumber, err))
		}
	}
	if len(failed) > 0 {
		return nil, errors.Join(failed...)
	}
	resp, err := w.prover.GenerateWinningPoSt(ctx, &sealer.PoStRequest{ProofType: ppt, Miner: mid, Randomness: randomness, VanillaProofs: proofs})
	if err != nil {
		return nil, err
	}
	return resp.Proofs, nil
}

func nonNilSectors(s []abi.SectorID) []abi.SectorID {
	if s == nil {
		return []abi.SectorID{}
	}
	return s
}
