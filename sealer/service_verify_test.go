package sealer_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/filecoin-project/go-state-types/abi"

	"github.com/snarkpipe/snarkpipe/prover"
	"github.com/snarkpipe/snarkpipe/prover/groth16"
	"github.com/snarkpipe/snarkpipe/sealer"
	"github.com/snarkpipe/snarkpipe/types"
	"github.com/snarkpipe/snarkpipe/types/vanilla"
)

// TestWindowPartitionOneVerifiesIndependently proves Window PoSt V1 (api 1.0: challenges
// depend on the global sector index) for partition 1: the vanilla proof is for sector
// index 2, and the Service's independent verification must place it there. The same
// proof claimed for partition 0 is refused natively.
func TestWindowPartitionOneVerifiesIndependently(t *testing.T) {
	sec := newServiceSector(t)
	info, _ := types.PoStProof(abi.RegisteredPoStProof_StackedDrgWindow2KiBV1)
	v, err := sec.sealed.PoStReplica().Vanilla(info, sec.rnd, 2)
	if err != nil {
		t.Fatal(err)
	}
	s, _ := newProvingService(t, sealer.DefaultConfig())
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	req := &sealer.PoStRequest{ProofType: info.ID, Miner: sec.id.Miner, Randomness: sec.rnd, VanillaProofs: [][]byte{vanilla.EncodePoStSectorProof(v)}, Partition: 1}
	if _, err := s.GenerateWindowPoSt(ctx, req); err != nil {
		t.Fatal(err)
	}
	req.Partition = 0
	if _, err := s.GenerateWindowPoSt(ctx, req); !errors.Is(err, sealer.ErrInvalidInput) || !errors.Is(err, sealer.ErrInvalidVanilla) {
		t.Fatalf("partition 0: %v", err)
	}
}

// TestWrongVerifyingKeyIsNeverReturned: with a verifying key that does not match, the
// proof the pipeline made is withheld and the job fails as internal.
func TestWrongVerifyingKeyIsNeverReturned(t *testing.T) {
	sec := newServiceSector(t)
	s, p := newProvingService(t, sealer.DefaultConfig())
	keys := devVerifyingKeys(t)
	wrong, err := sealer.New(sealer.DefaultConfig(), sealer.Deps{Prover: p, Backend: "cpu", DevParams: true,
		VerifyingKey: func(prover.CircuitID) (*groth16.VerifyingKey, error) { return keys("wpost-2k") }})
	if err != nil {
		t.Fatal(err)
	}
	_ = s
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	_, err = wrong.GenerateWinningPoSt(ctx, &sealer.PoStRequest{ProofType: abi.RegisteredPoStProof_StackedDrgWinning2KiBV1, Miner: sec.id.Miner, Randomness: sec.rnd, VanillaProofs: sec.winning})
	if sealer.CodeOf(err) != sealer.CodeInternal || !strings.Contains(err.Error(), "does not verify against the verifying key") {
		t.Fatalf("wrong key: %v", err)
	}
}
