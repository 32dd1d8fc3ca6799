package sealer

import (
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	"github.com/filecoin-project/go-state-types/abi"
)

// This file is the job log: one line when a job is admitted or refused, one when it ends.
// An operator watching the daemon, the Curio endpoint or the lotus worker sees every job
// there, not only the caller that sent it.

// discardLog is the job log of a Service built without Deps.Log.
var discardLog = slog.New(slog.NewTextHandler(io.Discard, nil))

// sealSector names a sealed sector as logs and status show it.
func sealSector(id abi.SectorID) string {
	return fmt.Sprintf("miner %d sector %d", id.Miner, id.Number)
}

// postSectors names a PoSt's miner and sectors, the first few of them.
func postSectors(miner abi.ActorID, sectors []PoStSector) string {
	const shown = 4
	nums := make([]string, 0, shown)
	for i, s := range sectors {
		if i == shown {
			nums = append(nums, fmt.Sprintf("… %d in all", len(sectors)))
			break
		}
		nums = append(nums, fmt.Sprint(s.Number))
	}
	word := "sector"
	if len(sectors) != 1 {
		word = "sectors"
	}
	return fmt.Sprintf("miner %d %s %s", miner, word, strings.Join(nums, ","))
}

// logSubmitted logs an admitted job (with what it proves) or a refused request (with
// why). A refused request has no job id: it never became a job.
func (t *jobTable) logSubmitted(id JobID, kind JobKind, sector string, err error) {
	if err != nil {
		t.log.Warn("job refused", "kind", kind, "sector", sector, "error", err)
		return
	}
	info, ierr := t.info(id)
	if ierr != nil {
		return
	}
	t.log.Info("job started", "job", info.ID, "sector", info.Sector, "proof", info.ProofType,
		"partitions", info.Partitions, "priority", info.Priority)
}

// logFinished logs a job's end with its wall time.
func (t *jobTable) logFinished(info JobInfo) {
	took := info.Finished.Sub(info.Submitted).Round(time.Millisecond)
	attrs := []any{"job", info.ID, "sector", info.Sector, "proof", info.ProofType, "took", took.String()}
	switch info.State {
	case JobDone:
		t.log.Info("job done", attrs...)
	case JobCancelled:
		t.log.Warn("job cancelled", append(attrs, "error", info.Error)...)
	default:
		t.log.Error("job failed", append(attrs, "error", info.Error)...)
	}
}
