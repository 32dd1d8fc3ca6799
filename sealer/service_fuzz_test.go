package sealer_test

import (
	"context"
	"errors"
	"testing"

	"github.com/filecoin-project/go-state-types/abi"

	"github.com/snarkpipe/snarkpipe/sealer"
)

// FuzzServiceSealCommit2 submits arbitrary C1 bytes: every one must be refused with a typed
// invalid-input error before reaching the prover (which fails the test if called), and
// nothing may panic. The seed is a real 2 KiB C1 output. Longer runs:
// go test ./sealer -run '^$' -fuzz FuzzServiceSealCommit2 -fuzztime 1m
func FuzzServiceSealCommit2(f *testing.F) {
	sec := newServiceSector(f)
	f.Add(sec.c1)
	f.Add(sec.c1[:len(sec.c1)-1])
	f.Add(sec.c1[:200])
	f.Add([]byte(`{"registered_proof":"StackedDrg2KiBV1_1"}`))
	f.Fuzz(func(t *testing.T, c1 []byte) {
		s, err := sealer.New(sealer.DefaultConfig(), sealer.Deps{Prover: refusingProver{t}, Backend: "cpu"})
		if err != nil {
			t.Fatal(err)
		}
		_, err = s.SubmitSealCommit2(context.Background(), &sealer.SealCommit2Request{Sector: abi.SectorID{Miner: sec.id.Miner, Number: sec.id.Number + 1}, ProofType: abi.RegisteredSealProof_StackedDrg2KiBV1_1, C1: c1})
		if !errors.Is(err, sealer.ErrInvalidInput) {
			t.Fatalf("C1 %q: %v, want invalid input", c1, err)
		}
	})
}

// FuzzServicePoSt submits arbitrary vanilla proof bytes to both PoSt calls: refused with a
// typed invalid-input error before the prover, never a panic. The randomness differs from
// the one the proofs answer, so even an intact proof is refused (challenges).
func FuzzServicePoSt(f *testing.F) {
	sec := newServiceSector(f)
	rnd := append([]byte(nil), sec.rnd...)
	rnd[0] ^= 1
	f.Add(sec.winning[0], false)
	f.Add(sec.winning[0][:len(sec.winning[0])-1], false)
	f.Add(sec.window[0][:64], true)
	f.Fuzz(func(t *testing.T, vanilla []byte, window bool) {
		s, err := sealer.New(sealer.DefaultConfig(), sealer.Deps{Prover: refusingProver{t}, Backend: "cpu"})
		if err != nil {
			t.Fatal(err)
		}
		req := &sealer.PoStRequest{ProofType: abi.RegisteredPoStProof_StackedDrgWinning2KiBV1, Miner: sec.id.Miner, Randomness: rnd, VanillaProofs: [][]byte{vanilla}}
		submit := s.SubmitWinningPoSt
		if window {
			req.ProofType, submit = abi.RegisteredPoStProof_StackedDrgWindow2KiBV1_1, s.SubmitWindowPoSt
		}
		if _, err := submit(context.Background(), req); !errors.Is(err, sealer.ErrInvalidInput) {
			t.Fatalf("vanilla %x: %v, want invalid input", vanilla, err)
		}
	})
}
