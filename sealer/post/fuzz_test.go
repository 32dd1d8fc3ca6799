package post

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/snarkpipe/snarkpipe/prover/r1cs"
	"github.com/snarkpipe/snarkpipe/types"
	"github.com/snarkpipe/snarkpipe/types/vanilla"
)

// FuzzFromVanilla feeds arbitrary bytes through the PoSt path a prover request takes:
// decode a vanilla sector proof, build the 2 KiB Winning or Window circuit and its public
// inputs, synthesize. Nothing may panic; whatever is accepted must synthesize the
// circuit's exact shape. Seeds: the Venus 2 KiB vanilla proofs in testdata.
func FuzzFromVanilla(f *testing.F) {
	for _, name := range []string{"venus-2KiB-post0-sector0.vproof", "venus-2KiB-post5-sector0.vproof", "venus-2KiB-post10-sector1.vproof"} {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, uint8(0))
		f.Add(b, uint8(5))
	}
	f.Fuzz(func(t *testing.T, data []byte, id uint8) {
		info, err := types.PoStProof(types.RegisteredPoStProof(id % 15))
		if err != nil || info.SectorSize != 2048 {
			return
		}
		p, err := vanilla.DecodePoStSectorProof(data)
		if err != nil {
			return
		}
		c, err := FromVanilla(info, []*vanilla.FallbackPoStSectorProof{p}, 0)
		if err != nil {
			return
		}
		if _, err := PublicInputs(info, venusRandomness, []PublicSector{{ID: p.SectorID, CommR: p.CommR}}, 0); err != nil {
			return // a non-canonical comm_r is refused here
		}
		cs := r1cs.NewCounter()
		if err := c.Synthesize(cs); err != nil {
			t.Fatalf("accepted circuit does not synthesize: %v", err)
		}
		if cs.Sizes().NumInputs != c.NumInputs() {
			t.Fatalf("%d inputs, want %d", cs.Sizes().NumInputs, c.NumInputs())
		}
	})
}
