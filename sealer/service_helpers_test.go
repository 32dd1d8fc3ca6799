package sealer_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/filecoin-project/go-state-types/abi"

	"github.com/snarkpipe/snarkpipe/prover"
	"github.com/snarkpipe/snarkpipe/prover/groth16"
	"github.com/snarkpipe/snarkpipe/prover/pipeline"
	"github.com/snarkpipe/snarkpipe/prover/srs/srstest"
	"github.com/snarkpipe/snarkpipe/sealer"
	"github.com/snarkpipe/snarkpipe/sealer/porep"
	"github.com/snarkpipe/snarkpipe/sealer/post"
	"github.com/snarkpipe/snarkpipe/sealer/refseal"
	"github.com/snarkpipe/snarkpipe/sealer/sealertest"
	"github.com/snarkpipe/snarkpipe/types"
	"github.com/snarkpipe/snarkpipe/types/vanilla"
)

// serviceSector is a 2 KiB sector sealed by the reference sealer, with its C1 output and
// PoSt vanilla proofs.
type serviceSector struct {
	id      abi.SectorID
	c1      []byte
	winning [][]byte // one vanilla proof
	window  [][]byte // the sector's vanilla proof for Window partition 0
	rnd     []byte
	sealed  *refseal.Sector
}

func newServiceSector(t testing.TB) *serviceSector {
	t.Helper()
	info, err := types.SealProof(abi.RegisteredSealProof_StackedDrg2KiBV1_1)
	if err != nil {
		t.Fatal(err)
	}
	data := make([]byte, info.SectorSize)
	for i := range data {
		data[i] = byte(i*7 + 1)
	}
	for i := 31; i < len(data); i += 32 {
		data[i] &= 0x3f
	}
	sid := abi.SectorID{Miner: 1000, Number: 42}
	s, err := refseal.Seal(info, sid, [32]byte{1, 2, 3}, data)
	if err != nil {
		t.Fatal(err)
	}
	c1, err := s.C1([32]byte{9, 8, 7})
	if err != nil {
		t.Fatal(err)
	}
	out := &serviceSector{id: sid, c1: vanilla.EncodeC1(c1), rnd: make([]byte, 32), sealed: s}
	for i := range out.rnd {
		out.rnd[i] = byte(200 - i)
	}
	for _, pt := range []abi.RegisteredPoStProof{abi.RegisteredPoStProof_StackedDrgWinning2KiBV1, abi.RegisteredPoStProof_StackedDrgWindow2KiBV1_1} {
		pinfo, err := types.PoStProof(pt)
		if err != nil {
			t.Fatal(err)
		}
		v, err := s.PoStReplica().Vanilla(pinfo, out.rnd, 0)
		if err != nil {
			t.Fatal(err)
		}
		b := [][]byte{vanilla.EncodePoStSectorProof(v)}
		if pinfo.Kind == types.PoStWinning {
			out.winning = b
		} else {
			out.window = b
		}
	}
	return out
}

// refusingProver fails the test if anything reaches it: requests that must be refused
// before proving use it.
type refusingProver struct{ t testing.TB }

func (p refusingProver) Submit(context.Context, pipeline.JobSpec) (*pipeline.Job, error) {
	p.t.Error("request reached the prover")
	return nil, pipeline.ErrClosed
}
func (p refusingProver) Preload(context.Context, prover.Circuit) (pipeline.LoadInfo, error) {
	p.t.Error("request reached the prover")
	return pipeline.LoadInfo{}, pipeline.ErrClosed
}
func (p refusingProver) Evict(prover.CircuitID) (bool, error) { return false, nil }
func (p refusingProver) Status() pipeline.Status              { return pipeline.Status{} }

// newProvingService starts a CPU pipeline with dev parameters from the shared test cache.
func newProvingService(t testing.TB, cfg sealer.Config) (*sealer.Service, *pipeline.Pipeline) {
	t.Helper()
	return sealertest.CPUService(t, cfg, sealer.Deps{VerifyingKey: devVerifyingKeys(t)})
}

// devVerifyingKeys returns the dev verifying key of each 2 KiB circuit id from the shared
// test cache (the pipeline's dev source makes the same parameters), so that the Service
// verifies proofs independently as it does with official keys.
func devVerifyingKeys(t testing.TB) func(prover.CircuitID) (*groth16.VerifyingKey, error) {
	return func(id prover.CircuitID) (*groth16.VerifyingKey, error) {
		var c prover.Circuit
		var err error
		for _, p := range types.PoStProofs() {
			if prover.CircuitID(p.CircuitID) == id {
				c, err = post.Blank(post.ConfigFor(&p))
			}
		}
		for _, p := range types.SealProofs() {
			if prover.CircuitID(p.CircuitID) == id && p.Provable {
				c, err = porep.Blank(porep.ConfigFor(&p))
			}
		}
		if c == nil || err != nil {
			return nil, fmt.Errorf("no blank circuit for %s: %v", id, err)
		}
		_, params := srstest.DevParams(t, c)
		vk := params.VK
		params.Close()
		return &vk, nil
	}
}
