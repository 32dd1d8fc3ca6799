package porep

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/filecoin-project/go-state-types/abi"

	"github.com/snarkpipe/snarkpipe/sealer/refseal"
	"github.com/snarkpipe/snarkpipe/types"
	"github.com/snarkpipe/snarkpipe/types/vanilla"
)

var writeSeeds = flag.Bool("write-seeds", false, "rewrite the FuzzFromC1 seed corpus in testdata/fuzz")

// TestWriteFuzzSeeds writes a reference-sealer 2 KiB C1 output as the FuzzFromC1 seed
// (with -write-seeds).
func TestWriteFuzzSeeds(t *testing.T) {
	if !*writeSeeds {
		t.Skip("run with -write-seeds to rewrite the seed corpus")
	}
	info, err := types.SealProof(5)
	if err != nil {
		t.Fatal(err)
	}
	s, err := refseal.Seal(info, abi.SectorID{Miner: 1, Number: 2}, [32]byte{3}, make([]byte, info.SectorSize))
	if err != nil {
		t.Fatal(err)
	}
	c1, err := s.C1([32]byte{4})
	if err != nil {
		t.Fatal(err)
	}
	body := fmt.Sprintf("go test fuzz v1\n[]byte(%s)\n", strconv.Quote(string(vanilla.EncodeC1(c1))))
	if err := os.WriteFile(filepath.Join("testdata", "fuzz", "FuzzFromC1", "seed-refseal-2KiB-V1_1"), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}
