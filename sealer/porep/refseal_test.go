package porep

import (
	"flag"
	"runtime"
	"testing"
	"time"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/filecoin-project/go-state-types/abi"

	"github.com/snarkpipe/snarkpipe/prover/r1cs"
	"github.com/snarkpipe/snarkpipe/sealer/refseal"
	"github.com/snarkpipe/snarkpipe/types"
)

// TestRefseal8MiBSatisfied: an 8 MiB V1_1 sector (6-level oct trees, depth-18 tree D)
// sealed by the reference sealer; 3.8 M rows, so not under -short.
func TestRefseal8MiBSatisfied(t *testing.T) {
	if testing.Short() {
		t.Skip("8 MiB seal and 3.8 M-row check: not under -short")
	}
	info, err := types.SealProof(6)
	if err != nil {
		t.Fatal(err)
	}
	data := make([]byte, info.SectorSize)
	for i := range data {
		data[i] = byte(i * 13)
	}
	for i := 31; i < len(data); i += 32 {
		data[i] &= 0x3f
	}
	s, err := refseal.Seal(info, abi.SectorID{Miner: 1000, Number: 8}, [32]byte{9}, data)
	if err != nil {
		t.Fatal(err)
	}
	c1, err := s.C1([32]byte{10})
	if err != nil {
		t.Fatal(err)
	}
	c, err := FromC1(c1, 0)
	if err != nil {
		t.Fatal(err)
	}
	cs := r1cs.NewChecker()
	if err := c.Synthesize(cs); err != nil {
		t.Fatal(err)
	}
	if err := cs.Err(); err != nil {
		t.Fatal(err)
	}
	want, err := SealPublicInputs(info, c1.ReplicaID, c1.CommD, c1.CommR, c1.Seed, 0)
	if err != nil {
		t.Fatal(err)
	}
	assertInputs(t, cs.Inputs(), want)
}

var synth32 = flag.Bool("synth32", false, "check one synthetic 32 GiB PoRep partition (about 4 GiB of witness, minutes)")

// TestRefseal2KiBSatisfied checks the circuits of C1 outputs from the reference sealer
// (written independently of this package) for every 2 KiB seal proof version (V1 and NI
// under -short).
func TestRefseal2KiBSatisfied(t *testing.T) {
	for _, id := range []types.RegisteredSealProof{0, 5, 10, 15} {
		if testing.Short() && (id == 5 || id == 10) {
			continue // ~3 s each; -short keeps V1 (legacy graph) and NI (13 partitions)
		}
		info, err := types.SealProof(id)
		if err != nil {
			t.Fatal(err)
		}
		data := make([]byte, info.SectorSize)
		for i := range data {
			data[i] = byte(i*7 + int(id))
		}
		for i := 31; i < len(data); i += 32 {
			data[i] &= 0x3f
		}
		var ticket, seed [32]byte
		ticket[0], seed[0] = 1, byte(id)+2
		s, err := refseal.Seal(info, abi.SectorID{Miner: 1000, Number: abi.SectorNumber(id)}, ticket, data)
		if err != nil {
			t.Fatal(err)
		}
		c1, err := s.C1(seed)
		if err != nil {
			t.Fatal(err)
		}
		c, err := FromC1(c1, 0)
		if err != nil {
			t.Fatal(err)
		}
		cs := r1cs.NewChecker()
		if err := c.Synthesize(cs); err != nil {
			t.Fatal(err)
		}
		if err := cs.Err(); err != nil {
			t.Fatalf("%s: %v", info.RustName, err)
		}
		want, err := SealPublicInputs(info, c1.ReplicaID, c1.CommD, c1.CommR, c1.Seed, 0)
		if err != nil {
			t.Fatal(err)
		}
		assertInputs(t, cs.Inputs(), want)
	}
}

// TestSynthetic32GiBPartition fills the witness of partition 0 of a synthetic 32 GiB C1
// output (refseal.SynthC1) with FillWitness and checks every row of the circuit against
// it with a Checker. Needs -synth32: about 130 M rows and 4 GiB of aux.
func TestSynthetic32GiBPartition(t *testing.T) {
	if !*synth32 || testing.Short() {
		t.Skip("synthetic 32 GiB partition: run with -synth32 (and without -short)")
	}
	info, err := types.SealProof(8)
	if err != nil {
		t.Fatal(err)
	}
	c1, _, err := refseal.SynthC1(info, 1)
	if err != nil {
		t.Fatal(err)
	}
	c, err := FromC1(c1, 0)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	cs := r1cs.NewChecker()
	if err := c.Synthesize(cs); err != nil {
		t.Fatal(err)
	}
	if err := cs.Err(); err != nil {
		t.Fatal(err)
	}
	checked := time.Since(start)
	want, err := SealPublicInputs(info, c1.ReplicaID, c1.CommD, c1.CommR, c1.Seed, 0)
	if err != nil {
		t.Fatal(err)
	}
	assertInputs(t, cs.Inputs(), want)
	inputs := make([]fr.Element, cs.Sizes().NumInputs)
	inputs[0].SetOne()
	aux := make([]fr.Element, cs.Sizes().NumAux)
	start = time.Now()
	if err := c.FillWitness(inputs, aux); err != nil {
		t.Fatal(err)
	}
	filled := time.Since(start)
	for i, v := range cs.Inputs() {
		if inputs[i] != v {
			t.Fatalf("input %d differs from the checked synthesis", i)
		}
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	t.Logf("32 GiB partition: checked in %v, filled in %v on %d CPUs; heap sys %d MiB", checked, filled, runtime.GOMAXPROCS(0), ms.HeapSys>>20)
}
