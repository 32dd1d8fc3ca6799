package lotus

import (
	"context"
	"crypto/sha256"
	"fmt"

	"github.com/filecoin-project/lotus/storage/sealer/sealtasks"
	"github.com/filecoin-project/lotus/storage/sealer/storiface"

	"github.com/snarkpipe/snarkpipe/sealer"
)

const methodSealCommit2 = "SealCommit2"

// sealCommit2 accepts a C2: CallID now, proof through ReturnSealCommit2 (async.go).
func (w *roleWorker) sealCommit2(sector storiface.SectorRef, c1o storiface.Commit1Out) (storiface.CallID, error) {
	return w.startCall(sealtasks.TTCommit2, methodSealCommit2, sector.ID, func() ([]byte, *storiface.CallError) {
		req := &sealer.SealCommit2Request{Sector: sector.ID, ProofType: sector.ProofType, C1: c1o, Key: c2Key(sector, c1o)}
		return w.awaitProof(func(ctx context.Context) (sealer.JobID, error) { return w.prover.SubmitSealCommit2(ctx, req) })
	})
}

// c2Key is the service's idempotency key of a C2: the same sector and C1 output (the
// miner asking again after a lost or failed report) joins the job in flight or reuses its
// recent proof instead of proving twice.
func c2Key(sector storiface.SectorRef, c1o []byte) string {
	h := sha256.Sum256(c1o)
	return fmt.Sprintf("lotus-c2-%d-%d-%d-%x", sector.ID.Miner, sector.ID.Number, sector.ProofType, h[:16])
}
