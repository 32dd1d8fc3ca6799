package post

import (
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/snarkpipe/snarkpipe/prover/r1cs"
	"github.com/snarkpipe/snarkpipe/sealer/refseal"
	"github.com/snarkpipe/snarkpipe/types"
)

// BenchmarkFillWitnessSyntheticWindow32GiBPartition fills a whole 32 GiB Window PoSt
// partition (2,349 sectors × 10 challenges, 126.9 M aux) of refseal's synthetic vanilla
// proofs with FillWitness, into buffers allocated and touched once: the pipeline's steady
// state (its slots are page-locked, so no first-touch faults either).
func BenchmarkFillWitnessSyntheticWindow32GiBPartition(b *testing.B) {
	info, sp := synthPoSt(b, 13, 11) // 32 GiB Window
	c, err := FromVanilla(info, sp.Proofs, 0)
	if err != nil {
		b.Fatal(err)
	}
	perSector := r1cs.NewCounter()
	if err := c.synthesizeSector(perSector, &c.Sectors[0]); err != nil {
		b.Fatal(err)
	}
	inputs := make([]fr.Element, c.Config.NumInputs())
	inputs[0].SetOne()
	aux := make([]fr.Element, perSector.Sizes().NumAux*len(c.Sectors))
	if err := c.FillWitness(inputs, aux); err != nil { // first touch of the buffers
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		if err := c.FillWitness(inputs, aux); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(aux))*float64(b.N)/b.Elapsed().Seconds(), "aux/s")
}

// BenchmarkFromVanillaWindow32GiBPartition builds the circuit of a whole 32 GiB Window
// PoSt partition from its 2,349 sector proofs: latency a request pays before its fill.
func BenchmarkFromVanillaWindow32GiBPartition(b *testing.B) {
	info, sp := synthPoSt(b, 13, 11) // 32 GiB Window
	b.ReportAllocs()
	for b.Loop() {
		if _, err := FromVanilla(info, sp.Proofs, 0); err != nil {
			b.Fatal(err)
		}
	}
}

// synthPoSt is refseal's synthetic partition of registered PoSt proof id from seed.
func synthPoSt(tb testing.TB, id types.RegisteredPoStProof, seed uint64) (*types.PoStProofInfo, *refseal.SynthPoSt) {
	tb.Helper()
	info, err := types.PoStProof(id)
	if err != nil {
		tb.Fatal(err)
	}
	sp, err := refseal.SynthPoStProofs(info, seed)
	if err != nil {
		tb.Fatal(err)
	}
	return info, sp
}
