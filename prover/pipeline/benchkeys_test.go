package pipeline

import (
	"context"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/snarkpipe/snarkpipe/prover"
	"github.com/snarkpipe/snarkpipe/prover/backend"
	"github.com/snarkpipe/snarkpipe/prover/r1cs"
)

// TestBenchKeysProofsVerify runs jobs with keys made on the device (Deps.Keys: BenchKeys
// on the CPU backend, i.e. DevSetup from the id-seeded stream): proofs verify against the
// key the pipeline made, the host holds no parameters, and the keys are deterministic
// per circuit id (same verifying key on every device, here two CPU devices).
func TestBenchKeysProofsVerify(t *testing.T) {
	p, err := New(testConfig(), Deps{Backends: []backend.Backend{newCPU(t), newCPU(t)}, Keys: BenchKeys{}})
	if err != nil {
		t.Fatal(err)
	}
	p.Start()
	t.Cleanup(func() { p.Close() })
	const n = 64
	if _, err := p.Preload(context.Background(), chain(n, 3)); err != nil {
		t.Fatal(err)
	}
	var vks []*deviceKey
	for _, d := range p.devices {
		d.arena.mu.Lock()
		vks = append(vks, d.arena.entries[chain(n, 3).ID()].value.(*deviceKey))
		d.arena.mu.Unlock()
	}
	if !vks[0].vk().Equal(vks[1].vk()) {
		t.Fatal("the two devices got different verifying keys for one circuit")
	}
	var circuits []prover.Circuit
	for y0 := uint64(3); y0 < 9; y0++ {
		circuits = append(circuits, chain(n, y0))
	}
	res := await(t, submit(t, p, JobSpec{Kind: "bench", Priority: Normal, Circuits: circuits}))

	shape := recordShape(t, circuits[0])
	pk, err := BenchKeys{}.ProvingKey(context.Background(), circuits[0].ID(), shape, newCPU(t))
	if err != nil {
		t.Fatal(err)
	}
	defer pk.Close()
	for i := range circuits {
		out := chainOutput(n, uint64(3+i))
		if err := pk.Params.VK.Verify(&res.Proofs[i], []fr.Element{out}); err != nil {
			t.Fatalf("proof %d does not verify against a BenchKeys key made again: %v", i, err)
		}
	}
	waitFor(t, "idle pipeline", func() bool { return idle(p) })
	s := p.Status()
	if len(s.Host.Resident) != 1 || s.Host.Resident[0].Bytes != hintFor(t, circuits[0]).ShapeBytes {
		t.Fatalf("host residency %+v: want the recording only (no parameter bytes)", s.Host.Resident)
	}
	for i, d := range s.Devices {
		if len(d.Resident) != 1 {
			t.Fatalf("device %d residency %+v: want the key of the circuit", i, d.Resident)
		}
	}
}

// recordShape records c's R1CS.
func recordShape(t testing.TB, c prover.Circuit) *r1cs.Shape {
	t.Helper()
	rec := r1cs.NewRecorder(r1cs.Capacity{})
	if err := c.Synthesize(rec); err != nil {
		t.Fatal(err)
	}
	return rec.Finish()
}

// TestBenchParamsAreBenchKeysOnTheHost: BenchParams gives the parameters of the same
// benchmark key as BenchKeys (same verifying key), held on the host: a pipeline over them
// accounts recording and parameters there, and its proofs verify against that key.
func TestBenchParamsAreBenchKeysOnTheHost(t *testing.T) {
	const n = 48
	c := chain(n, 5)
	shape := recordShape(t, c)
	params, err := BenchParams{Maker: newCPU(t)}.Params(context.Background(), c.ID(), shape)
	if err != nil {
		t.Fatal(err)
	}
	defer params.Close()
	pk, err := BenchKeys{}.ProvingKey(context.Background(), c.ID(), shape, newCPU(t))
	if err != nil {
		t.Fatal(err)
	}
	defer pk.Close()
	if !params.VK.Equal(&pk.Params.VK) || !params.Dev {
		t.Fatal("BenchParams and BenchKeys disagree on the verifying key of one circuit id")
	}

	p, err := New(testConfig(), Deps{Backends: []backend.Backend{newCPU(t)}, Params: BenchParams{Maker: newCPU(t)}})
	if err != nil {
		t.Fatal(err)
	}
	p.Start()
	t.Cleanup(func() { p.Close() })
	res := await(t, submit(t, p, JobSpec{Kind: "bench", Priority: Normal, Circuits: []prover.Circuit{chain(n, 5), chain(n, 6)}}))
	for i, y0 := range []uint64{5, 6} {
		if err := params.VK.Verify(&res.Proofs[i], []fr.Element{chainOutput(n, y0)}); err != nil {
			t.Fatalf("proof %d: %v", i, err)
		}
	}
	waitFor(t, "idle pipeline", func() bool { return idle(p) })
	h := hintFor(t, c)
	if s := p.Status(); len(s.Host.Resident) != 1 || s.Host.Resident[0].Bytes != h.ShapeBytes+h.ParamsBytes {
		t.Fatalf("host residency %+v: want recording and parameters (%d bytes)", s.Host.Resident, h.ShapeBytes+h.ParamsBytes)
	}
}
