package update_test

import (
	"crypto/sha256"
	"encoding/binary"
	"testing"

	"github.com/snarkpipe/snarkpipe/sealer/refseal"
	"github.com/snarkpipe/snarkpipe/sealer/update"
	"github.com/snarkpipe/snarkpipe/types"
	"github.com/snarkpipe/snarkpipe/types/vanilla"
)

// randomNodes returns size bytes of pseudo-random nodes, each a canonical field element
// (top two bits cleared), deterministic in seed.
func randomNodes(size uint64, seed string) []byte {
	out := make([]byte, size)
	var ctr [8]byte
	for i := uint64(0); i < size; i += 32 {
		binary.LittleEndian.PutUint64(ctr[:], i)
		h := sha256.Sum256(append([]byte(seed), ctr[:]...))
		h[31] &= 0x3f
		copy(out[i:], h[:])
	}
	return out
}

// refUpdate makes a reference update of the given update type with random old replica,
// comm_c and new data.
func refUpdate(t testing.TB, id types.RegisteredUpdateProof) *refseal.SectorUpdate {
	t.Helper()
	info, err := types.UpdateProof(id)
	if err != nil {
		t.Fatal(err)
	}
	var commC vanilla.Domain
	copy(commC[:], randomNodes(32, "comm_c"))
	u, err := refseal.Update(info, commC, randomNodes(info.SectorSize, "replica"), randomNodes(info.SectorSize, "data"), info.HDefault)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// publicOf returns partition k's public inputs of u.
func publicOf(t testing.TB, u *refseal.SectorUpdate, k int) update.PublicInputs {
	t.Helper()
	p := update.PublicInputs{K: k, H: u.H}
	var err error
	if p.CommROld, err = update.CommitmentFr([32]byte(u.CommROld)); err != nil {
		t.Fatal(err)
	}
	if p.CommDNew, err = update.CommitmentFr([32]byte(u.CommDNew)); err != nil {
		t.Fatal(err)
	}
	if p.CommRNew, err = update.CommitmentFr([32]byte(u.CommRNew)); err != nil {
		t.Fatal(err)
	}
	return p
}

// circuitOf builds partition k's circuit from u's vanilla proof after a bincode round trip.
func circuitOf(t testing.TB, u *refseal.SectorUpdate, k int) (*update.Circuit, *vanilla.UpdatePartitionProof) {
	t.Helper()
	p, err := u.PartitionProof(k)
	if err != nil {
		t.Fatal(err)
	}
	dec, err := vanilla.DecodeUpdatePartitionProofFor(u.Info, vanilla.EncodeUpdatePartitionProof(p))
	if err != nil {
		t.Fatal(err)
	}
	c, err := update.FromVanilla(u.Info, publicOf(t, u, k), dec)
	if err != nil {
		t.Fatal(err)
	}
	return c, dec
}
