package kit

import (
	"fmt"
	"sync"
	"testing"

	commcid "github.com/filecoin-project/go-fil-commcid"
	"github.com/filecoin-project/go-state-types/abi"
	"github.com/ipfs/go-cid"

	"github.com/snarkpipe/snarkpipe/sealer/graph"
	"github.com/snarkpipe/snarkpipe/sealer/refseal"
	"github.com/snarkpipe/snarkpipe/types"
	"github.com/snarkpipe/snarkpipe/types/vanilla"
)

// SealProof2KiB is the registered seal proof of every fixture sector (the V1_1 type
// lotus-miner seals 2 KiB sectors with).
const SealProof2KiB = abi.RegisteredSealProof_StackedDrg2KiBV1_1

// Sector is a 2 KiB sector sealed by the reference sealer: its C1 output (what lotus
// calls Commit1Out: the serde JSON of SealCommitPhase1Output), its commitments, and the
// replica PoSt vanilla proofs are made from.
type Sector struct {
	ID          abi.SectorID
	SealProof   abi.RegisteredSealProof
	Ticket      [32]byte
	Seed        [32]byte
	CommD       [32]byte
	CommR       [32]byte
	SealedCID   cid.Cid
	UnsealedCID cid.Cid
	// C1 is the C1 output as lotus sends it to SealCommit2.
	C1 []byte

	replica *refseal.PoStReplica
}

// FixtureMiner is the actor id of every fixture sector.
const FixtureMiner abi.ActorID = 1000

// Fixture2KiB is sector 1 of miner 1000, sealed once per test process.
func Fixture2KiB(t testing.TB) *Sector {
	t.Helper()
	return Sector2KiB(t, 1)
}

var (
	sectorsMu sync.Mutex
	sectors   = map[abi.SectorNumber]*Sector{}
)

// Sector2KiB is sector number of miner 1000, sealed once per test process from data,
// ticket and seed derived from the number (distinct sectors have distinct comm_r).
func Sector2KiB(t testing.TB, number abi.SectorNumber) *Sector {
	t.Helper()
	sectorsMu.Lock()
	defer sectorsMu.Unlock()
	if s, ok := sectors[number]; ok {
		return s
	}
	s, err := sealSector(abi.SectorID{Miner: FixtureMiner, Number: number})
	if err != nil {
		t.Fatalf("kit: sealing 2 KiB sector %d: %v", number, err)
	}
	sectors[number] = s
	return s
}

func sealSector(id abi.SectorID) (*Sector, error) {
	info, err := types.SealProof(SealProof2KiB)
	if err != nil {
		return nil, err
	}
	data := make([]byte, info.SectorSize)
	for i := range data {
		data[i] = byte(i*13 + 7 + int(id.Number)*31)
	}
	for i := 31; i < len(data); i += 32 {
		data[i] &= 0x3f // fr32 padding
	}
	s := &Sector{ID: id, SealProof: SealProof2KiB, Ticket: [32]byte{0x5e, 0xa1, byte(id.Number)}, Seed: [32]byte{0x5e, 0xed, byte(id.Number)}}
	sealed, err := refseal.Seal(info, id, s.Ticket, data)
	if err != nil {
		return nil, err
	}
	c1, err := sealed.C1(s.Seed)
	if err != nil {
		return nil, err
	}
	s.C1 = vanilla.EncodeC1(c1)
	s.CommD, s.CommR = sealed.CommD, sealed.CommR
	if s.SealedCID, err = commcid.ReplicaCommitmentV1ToCID(s.CommR[:]); err != nil {
		return nil, err
	}
	if s.UnsealedCID, err = commcid.DataCommitmentV1ToCID(s.CommD[:]); err != nil {
		return nil, err
	}
	s.replica = sealed.PoStReplica()
	return s, nil
}

// Challenges are the leaves a PoSt of type ppt challenges in this sector for the given
// randomness, the sector being at sectorIndex of the whole proof (0 for Winning), as the
// miner computes them (GeneratePoStFallbackSectorChallenges).
func (s *Sector) Challenges(ppt abi.RegisteredPoStProof, randomness []byte, sectorIndex int) ([]uint64, error) {
	info, err := types.PoStProof(ppt)
	if err != nil {
		return nil, err
	}
	rnd, ok := types.MaskRandomness(randomness)
	if !ok {
		return nil, fmt.Errorf("kit: randomness of %d bytes, want 32", len(randomness))
	}
	return graph.PoStSectorChallenges(info, rnd, uint64(s.ID.Number), sectorIndex)
}

// Vanilla is the sector's PoSt vanilla proof (bincode FallbackPoStSectorProof), what
// lotus' storage serves at /remote/vanilla/single.
func (s *Sector) Vanilla(ppt abi.RegisteredPoStProof, randomness []byte, sectorIndex int) ([]byte, error) {
	info, err := types.PoStProof(ppt)
	if err != nil {
		return nil, err
	}
	v, err := s.replica.Vanilla(info, randomness, sectorIndex)
	if err != nil {
		return nil, err
	}
	return vanilla.EncodePoStSectorProof(v), nil
}
