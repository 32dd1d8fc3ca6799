package remotec2

import (
	"net/http"
	"testing"
	"time"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/filecoin-project/go-state-types/abi"

	"github.com/snarkpipe/snarkpipe/sealer"
	"github.com/snarkpipe/snarkpipe/sealer/porep"
	"github.com/snarkpipe/snarkpipe/sealer/refseal"
	"github.com/snarkpipe/snarkpipe/sealer/sealertest"
	"github.com/snarkpipe/snarkpipe/types"
	"github.com/snarkpipe/snarkpipe/types/vanilla"
)

// TestRemoteCommit2RealService posts a 2 KiB sector's C1 output (reference sealer) the
// way lotus does and verifies the returned proof bytes against the dev verifying key and
// public inputs computed here; a C1 output of another sector gets a 400 naming the
// failed check. Skipped with -short: a 2 KiB PoRep proof (2.7 M constraints) on the CPU.
func TestRemoteCommit2RealService(t *testing.T) {
	if testing.Short() {
		t.Skip("proves a 2 KiB PoRep on the CPU: skipped with -short")
	}
	info, _ := types.SealProof(abi.RegisteredSealProof_StackedDrg2KiBV1_1)
	data := make([]byte, info.SectorSize)
	for i := range data {
		data[i] = byte(i*31+3) & 0x3f
	}
	sid := abi.SectorID{Miner: 1000, Number: 42}
	sector, err := refseal.Seal(info, sid, [32]byte{7, 7, 7}, data)
	if err != nil {
		t.Fatal(err)
	}
	c1, err := sector.C1([32]byte{1, 9, 1})
	if err != nil {
		t.Fatal(err)
	}
	c1JSON := vanilla.EncodeC1(c1)

	srv := newTestServer(t, newRealService(t), DefaultConfig())
	start := time.Now()
	status, body, _ := post(t, srv.URL+Path+"?token=w", lotusBodyFor(t, sid, info.ID, c1JSON), nil)
	if status != http.StatusOK {
		t.Fatalf("status %d: %s", status, body)
	}
	t.Logf("2 KiB C2 over HTTP in %v", time.Since(start))

	public, err := porep.SealPublicInputs(info, c1.ReplicaID, c1.CommD, c1.CommR, c1.Seed, 0)
	if err != nil {
		t.Fatal(err)
	}
	blank, err := porep.Blank(porep.ConfigFor(info))
	if err != nil {
		t.Fatal(err)
	}
	sealertest.VerifyDevProofs(t, blank, body, [][]fr.Element{public})

	// The same C1 output claimed for another sector: replica_id does not match.
	status, body, _ = post(t, srv.URL+Path+"?token=w", lotusBodyFor(t, abi.SectorID{Miner: 1000, Number: 43}, info.ID, c1JSON), nil)
	if status != http.StatusBadRequest {
		t.Fatalf("C1 of another sector: %d %s", status, body)
	}
	t.Logf("C1 of another sector: %d %s", status, body)
}

func newRealService(t *testing.T) *sealer.Service {
	s, _ := sealertest.CPUService(t, sealer.DefaultConfig(), sealer.Deps{})
	return s
}
