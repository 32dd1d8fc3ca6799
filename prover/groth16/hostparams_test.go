package groth16_test

import (
	"testing"

	"github.com/snarkpipe/snarkpipe/prover/backend/cpu"
	"github.com/snarkpipe/snarkpipe/prover/groth16"
	"github.com/snarkpipe/snarkpipe/prover/r1cs/r1cstest"
)

// TestHostParamsReadsTheKeyBack: a key's vectors read back from its backend are the
// parameters it was made from, with its verifying key (a copy: closing one leaves the
// other intact); a backend that cannot read bases back is refused.
func TestHostParamsReadsTheKeyBack(t *testing.T) {
	f := setupCircuit(t, &r1cstest.Random{Seed: 31, Constraints: 200, Inputs: 2, Unused: 7}, 32)
	host, err := f.pk.HostParams()
	if err != nil {
		t.Fatal(err)
	}
	if !host.Equal(f.pk.Params) || !host.Dev {
		t.Fatal("host copy differs from the key's parameters")
	}
	host.VK.IC[0] = host.VK.IC[1]
	if f.pk.Params.VK.IC[0] == f.pk.Params.VK.IC[1] {
		t.Fatal("the host copy shares the key's IC vector")
	}
	if err := host.Close(); err != nil {
		t.Fatal(err)
	}
	cb, _ := cpu.New(cpu.DefaultConfig())
	pk, err := groth16.NewProvingKey(hostEvaluator{cb}, f.pk.Params, f.shape.Counts())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pk.HostParams(); err == nil {
		t.Fatal("HostParams on a backend without BasesReader succeeded")
	}
}
