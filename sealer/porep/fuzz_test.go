package porep

import (
	"testing"

	"github.com/filecoin-project/go-state-types/abi"

	"github.com/snarkpipe/snarkpipe/sealer/refseal"
	"github.com/snarkpipe/snarkpipe/types"
	"github.com/snarkpipe/snarkpipe/types/vanilla"
)

// FuzzFromC1 feeds arbitrary bytes through the C2 request path up to synthesis: decode a
// C1 output, build partition 0's circuit and its public inputs. Nothing may panic; an
// accepted circuit must have the configuration's shape (check) and a full set of inputs.
// Seeds: 2 KiB C1 outputs of the reference sealer (V1_1 and NI), made at start-up.
func FuzzFromC1(f *testing.F) {
	for _, id := range []types.RegisteredSealProof{5, 15} {
		info, err := types.SealProof(id)
		if err != nil {
			f.Fatal(err)
		}
		s, err := refseal.Seal(info, abi.SectorID{Miner: 1, Number: 2}, [32]byte{3}, make([]byte, info.SectorSize))
		if err != nil {
			f.Fatal(err)
		}
		c1, err := s.C1([32]byte{4})
		if err != nil {
			f.Fatal(err)
		}
		f.Add(vanilla.EncodeC1(c1))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c1, err := vanilla.DecodeC1(data)
		if err != nil {
			return
		}
		c, err := FromC1(c1, 0)
		if err != nil {
			return
		}
		if err := c.check(); err != nil {
			t.Fatalf("FromC1 accepted a circuit of the wrong shape: %v", err)
		}
		info, err := c1.ProofInfo()
		if err != nil {
			t.Fatal(err)
		}
		in, err := SealPublicInputs(info, c1.ReplicaID, c1.CommD, c1.CommR, c1.Seed, 0)
		if err != nil {
			return // non-canonical public values are refused here
		}
		if len(in)+1 != c.NumInputs() {
			t.Fatalf("%d public inputs, the circuit has %d", len(in), c.NumInputs()-1)
		}
	})
}
