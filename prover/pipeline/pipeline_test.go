package pipeline

import (
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/snarkpipe/snarkpipe/prover"
	"github.com/snarkpipe/snarkpipe/prover/groth16"
)

func TestPipelineProofsVerify(t *testing.T) {
	p := startPipeline(t, testConfig())
	const n = 200
	circuits := []prover.Circuit{chain(n, 3), chain(n, 5), chain(n, 7)}
	res := await(t, submit(t, p, JobSpec{Kind: "test", Priority: Normal, Circuits: circuits}))
	vk := devVK(t, circuits[0])
	if len(res.Proofs) != 3 || len(res.Bytes()) != 3*groth16.ProofSize {
		t.Fatalf("%d proofs, %d bytes", len(res.Proofs), len(res.Bytes()))
	}
	for i, y0 := range []uint64{3, 5, 7} {
		out := chainOutput(n, y0)
		if err := vk.Verify(&res.Proofs[i], []fr.Element{out}); err != nil {
			t.Fatalf("proof %d: %v", i, err)
		}
		wrong := chainOutput(n, y0+1)
		if err := vk.Verify(&res.Proofs[i], []fr.Element{wrong}); err == nil {
			t.Fatalf("proof %d verifies for another public input", i)
		}
		tm := res.Timings[i]
		if !(tm.Submitted.Before(tm.SynthStart) || tm.Submitted.Equal(tm.SynthStart)) || tm.SynthEnd.Before(tm.SynthStart) ||
			tm.ProveStart.Before(tm.SynthEnd) || tm.Done.Before(tm.ProveEnd) || tm.Prove <= 0 || tm.Worker == "" {
			t.Fatalf("partition %d timings out of order: %+v", i, tm)
		}
	}
	waitFor(t, "idle pipeline", func() bool { return idle(p) })
	s := p.Status()
	if len(s.Host.Resident) != 1 || s.Host.Resident[0].Refs != 0 || len(s.Devices[0].Resident) != 1 {
		t.Fatalf("after the job: host %+v devices %+v", s.Host.Resident, s.Devices[0].Resident)
	}
}
