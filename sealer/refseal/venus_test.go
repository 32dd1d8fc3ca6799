package refseal

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/filecoin-project/go-state-types/abi"
	"github.com/ipfs/go-cid"
	"golang.org/x/crypto/blake2b"

	"github.com/snarkpipe/snarkpipe/sealer"
	"github.com/snarkpipe/snarkpipe/types"
	"github.com/snarkpipe/snarkpipe/types/vanilla"
)

var venusDir = filepath.Join("..", "..", "..", "shared", "testdata", "upstream", "venus-genesis-sectors-2KiB")

// venusSector is one real 2 KiB presealed sector of miner t0106 (Venus genesis fixtures).
type venusSector struct {
	number       abi.SectorNumber
	proof        abi.RegisteredSealProof
	commR, commD types.Commitment
	commC        vanilla.Domain // p_aux[0:32]
	commRLast    vanilla.Domain // p_aux[32:64]
	replica      []byte
}

const venusMiner = abi.ActorID(106)

func readVenus(t testing.TB, rel string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(venusDir, rel))
	if os.IsNotExist(err) {
		t.Skipf("Venus genesis sector fixture %s not present (expected under %s)", rel, venusDir)
	}
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func venusSectors(t testing.TB) []venusSector {
	t.Helper()
	var pre map[string]struct {
		Sectors []struct {
			CommR, CommD cid.Cid
			SectorID     abi.SectorNumber
			ProofType    abi.RegisteredSealProof
		}
	}
	if err := json.Unmarshal(readVenus(t, "pre-seal-t0106.json"), &pre); err != nil {
		t.Fatal(err)
	}
	var out []venusSector
	for _, s := range pre["t0106"].Sectors {
		commR, err := types.CIDToCommR(s.CommR)
		if err != nil {
			t.Fatal(err)
		}
		commD, err := types.CIDToCommD(s.CommD)
		if err != nil {
			t.Fatal(err)
		}
		name := "s-t0106-" + string(rune('0'+s.SectorID))
		paux := readVenus(t, filepath.Join("cache", name, "p_aux"))
		vs := venusSector{number: s.SectorID, proof: s.ProofType, commR: commR, commD: commD, replica: readVenus(t, filepath.Join("sealed", name))}
		copy(vs.commC[:], paux[:32])
		copy(vs.commRLast[:], paux[32:64])
		out = append(out, vs)
	}
	if len(out) != 2 {
		t.Fatalf("%d Venus sectors, want 2", len(out))
	}
	return out
}

// lotusSeedTicket is the ticket lotus-seed preseals with: BLAKE2b-256 of its default
// --ticket-preimage "lotus is fire".
func lotusSeedTicket() [32]byte { return blake2b.Sum256([]byte("lotus is fire")) }

// TestVenusSectorsUnsealAndReseal is the end-to-end check of the SDR labeling against real
// upstream output: unsealing the real replica with our labels and resealing the recovered
// data must reproduce the sector's comm_d (SHA tree over data we never saw), p_aux's comm_c
// (tree C over our labels), comm_r_last and comm_r.
func TestVenusSectorsUnsealAndReseal(t *testing.T) {
	for _, vs := range venusSectors(t) {
		info, err := types.SealProof(vs.proof)
		if err != nil {
			t.Fatal(err)
		}
		id := abi.SectorID{Miner: venusMiner, Number: vs.number}
		data, err := Unseal(info, id, lotusSeedTicket(), vs.commD, vs.replica)
		if err != nil {
			t.Fatal(err)
		}
		s, err := Seal(info, id, lotusSeedTicket(), data)
		if err != nil {
			t.Fatalf("sector %d: reseal: %v", vs.number, err)
		}
		if s.CommD != vanilla.Domain(vs.commD) || s.CommC != vs.commC || s.CommRLast != vs.commRLast || s.CommR != vanilla.Domain(vs.commR) {
			t.Fatalf("sector %d: resealed comm_d %x comm_c %x comm_r_last %x comm_r %x; want %x %x %x %x",
				vs.number, s.CommD, s.CommC, s.CommRLast, s.CommR, vs.commD, vs.commC, vs.commRLast, vs.commR)
		}
		if string(s.Replica()) != string(vs.replica) {
			t.Fatalf("sector %d: resealed replica differs", vs.number)
		}
	}
}

// TestVenusSectorsPoSt builds Winning and Window PoSt vanilla proofs from the real replicas
// and verifies them against the sectors' on-chain comm_r.
func TestVenusSectorsPoSt(t *testing.T) {
	sectors := venusSectors(t)
	var reps []*PoStReplica
	var pub []sealer.PoStSector
	for _, vs := range sectors {
		info, _ := types.SealProof(vs.proof)
		r, err := NewPoStReplica(info.SectorShape, vs.number, vs.commC, vs.replica)
		if err != nil {
			t.Fatal(err)
		}
		if r.CommRLast != vs.commRLast || r.CommR != vanilla.Domain(vs.commR) {
			t.Fatalf("sector %d: tree R root %x, comm_r %x; want %x, %x", vs.number, r.CommRLast, r.CommR, vs.commRLast, vs.commR)
		}
		reps = append(reps, r)
		pub = append(pub, sealer.PoStSector{Number: vs.number, CommR: vs.commR})
	}
	randomness := make([]byte, 32)
	for i := range randomness {
		randomness[i] = byte(7 * i)
	}
	for _, id := range []abi.RegisteredPoStProof{abi.RegisteredPoStProof_StackedDrgWinning2KiBV1, abi.RegisteredPoStProof_StackedDrgWindow2KiBV1, abi.RegisteredPoStProof_StackedDrgWindow2KiBV1_1} {
		info, err := types.PoStProof(id)
		if err != nil {
			t.Fatal(err)
		}
		n := min(len(reps), info.SectorsPerPartition)
		var proofs []*vanilla.FallbackPoStSectorProof
		for i := 0; i < n; i++ {
			p, err := reps[i].Vanilla(info, randomness, i)
			if err != nil {
				t.Fatal(err)
			}
			// Round-trip through upstream's bincode form.
			if p, err = vanilla.DecodePoStSectorProof(vanilla.EncodePoStSectorProof(p)); err != nil {
				t.Fatal(err)
			}
			proofs = append(proofs, p)
		}
		if err := sealer.VerifyPoSt(&sealer.PoStPublic{Proof: info, Randomness: randomness, Sectors: pub[:n]}, proofs); err != nil {
			t.Fatalf("%s: %v", info.RustName, err)
		}
	}
}

// TestVenusWindowPartitionIndex proves the two real sectors as partition 1 of a V1 Window
// PoSt (challenge indices continue across partitions for V1_0_0): the proofs verify as
// partition 1 and fail the challenge check as partition 0.
func TestVenusWindowPartitionIndex(t *testing.T) {
	info, _ := types.PoStProof(abi.RegisteredPoStProof_StackedDrgWindow2KiBV1)
	randomness := make([]byte, 32)
	randomness[0] = 9
	pub := &sealer.PoStPublic{Proof: info, Randomness: randomness, Partition: 1}
	var proofs []*vanilla.FallbackPoStSectorProof
	for i, vs := range venusSectors(t) {
		r, err := NewPoStReplica(info.SectorShape, vs.number, vs.commC, vs.replica)
		if err != nil {
			t.Fatal(err)
		}
		p, err := r.Vanilla(info, randomness, info.SectorsPerPartition+i)
		if err != nil {
			t.Fatal(err)
		}
		proofs = append(proofs, p)
		pub.Sectors = append(pub.Sectors, sealer.PoStSector{Number: vs.number, CommR: vs.commR})
	}
	if err := sealer.VerifyPoSt(pub, proofs); err != nil {
		t.Fatalf("partition 1: %v", err)
	}
	pub.Partition = 0
	err := sealer.VerifyPoSt(pub, proofs)
	if ve, ok := sealer.AsVerifyError(err); !ok || ve.Check != sealer.CheckChallenge || ve.Partition != 0 {
		t.Fatalf("as partition 0: got %v, want a challenge failure", err)
	}
}
