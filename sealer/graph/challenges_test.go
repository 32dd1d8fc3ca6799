package graph

import (
	"crypto/sha256"
	"encoding/binary"
	"math/big"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/filecoin-project/go-state-types/abi"
	"github.com/snarkpipe/snarkpipe/types"
)

// TestSynthChallengesAgainstUpstream reproduces rust-fil-proofs
// test_synth_challenges_against_hardcoded (spec circuits.md §10).
func TestSynthChallengesAgainstUpstream(t *testing.T) {
	var replicaID, commR, rand [32]byte
	replicaID[0], commR[0] = 55, 101
	for i := range rand {
		rand[i] = 1
	}
	g := NewSynthGeneratorN(1<<10, replicaID, commR, 21)
	wantSynth := []uint64{178, 297, 869, 211, 875, 477, 94, 781, 124, 332, 856, 801, 176, 692, 429, 691, 290, 204, 986, 210, 973}
	if got := g.All(); !slices.Equal(got, wantSynth) {
		t.Errorf("synthetic challenges %v", got)
	}
	for i := len(wantSynth) - 1; i >= 0; i-- {
		if got := g.Challenge(uint64(i)); got != wantSynth[i] {
			t.Errorf("challenge %d = %d, want %d", i, got, wantSynth[i])
		}
	}
	wantPoRep := []uint64{176, 781, 801, 986, 290, 211, 692, 856, 986, 332}
	if got := g.PartitionChallenges(rand, 10, 0); !slices.Equal(got, wantPoRep) {
		t.Errorf("porep challenges %v", got)
	}
	// Partition k reads the selection stream at offset 4·k·C: partition 1 of 5 continues it.
	if got := g.PartitionChallenges(rand, 5, 1); !slices.Equal(got, wantPoRep[5:]) {
		t.Errorf("partition 1 of 5: %v", got)
	}
}

// TestChallengeFromBytesMatchesBigInt compares the limb-wise reduction with math/big.
func TestChallengeFromBytesMatchesBigInt(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, nodes := range []uint64{64, 1 << 18, 1 << 30, 1 << 31, 1000} {
		for i := 0; i < 200; i++ {
			var b [32]byte
			for j := range b {
				b[j] = byte(rng.UintN(256))
			}
			le := slices.Clone(b[:])
			slices.Reverse(le)
			want := new(big.Int).Mod(new(big.Int).SetBytes(le), new(big.Int).SetUint64(nodes-1)).Uint64() + 1
			if got := challengeFromBytes(&b, nodes); got != want {
				t.Fatalf("nodes %d: %d, want %d", nodes, got, want)
			}
		}
	}
}

// TestInteractiveAndNIFormulas recomputes a challenge from the documented formula, so a
// change of byte order or of the j numbering is caught.
func TestInteractiveAndNIFormulas(t *testing.T) {
	var replicaID, seed, commR [32]byte
	replicaID[3], seed[5], commR[7] = 1, 2, 3
	nodes := uint64(1 << 30)
	got := InteractiveChallenges(nodes, replicaID, seed, 18, 3)
	msg := append(append(slices.Clone(replicaID[:]), seed[:]...), binary.LittleEndian.AppendUint32(nil, 3*18+4)...)
	d := sha256.Sum256(msg)
	if want := challengeFromBytes(&d, nodes); got[4] != want {
		t.Errorf("interactive: %d, want %d", got[4], want)
	}
	ni := NIChallenges(nodes, replicaID, commR, 18, 2)
	msg = append(append(append([]byte(niTag), replicaID[:]...), commR[:]...), binary.LittleEndian.AppendUint32(nil, 2*18+17)...)
	d = sha256.Sum256(msg)
	if want := challengeFromBytes(&d, nodes); ni[17] != want {
		t.Errorf("NI: %d, want %d", ni[17], want)
	}
	for _, c := range append(got, ni...) {
		if c == 0 || c >= nodes {
			t.Fatalf("challenge %d out of [1, nodes)", c)
		}
	}
}

func TestPoRepChallengesDispatch(t *testing.T) {
	var replicaID, commR, seed [32]byte
	replicaID[0], commR[0], seed[0] = 9, 8, 7
	for _, id := range []abi.RegisteredSealProof{3, 8, 13, 18} {
		info, _ := types.SealProof(id)
		c, err := PoRepChallenges(info, replicaID, commR, seed, info.PartitionCount-1)
		if err != nil || len(c) != info.ChallengesPerPartition {
			t.Fatalf("id %d: %v %v", id, c, err)
		}
		if _, err := PoRepChallenges(info, replicaID, commR, seed, info.PartitionCount); err == nil {
			t.Errorf("id %d: partition out of range accepted", id)
		}
	}
}

func TestPoStChallenges(t *testing.T) {
	var rnd [32]byte
	for i := range rnd {
		rnd[i] = 0xff
	}
	win, _ := types.PoStProof(abi.RegisteredPoStProof_StackedDrgWinning32GiBV1)
	if _, err := PoStSectorChallenges(win, rnd, 1, 0); err == nil {
		t.Fatal("unmasked randomness accepted")
	}
	rnd = types.MaskFr(rnd)
	c, err := PoStSectorChallenges(win, rnd, 1, 0)
	if err != nil || len(c) != 66 {
		t.Fatal(err)
	}
	if c[65] != PoStLeafChallenge(win.SectorSize, rnd, 1, 65) {
		t.Error("winning challenge index is not n")
	}
	v1, _ := types.PoStProof(abi.RegisteredPoStProof_StackedDrgWindow32GiBV1)
	v12, _ := types.PoStProof(abi.RegisteredPoStProof_StackedDrgWindow32GiBV1_1)
	a, _ := PoStSectorChallenges(v1, rnd, 5, 3)
	b, _ := PoStSectorChallenges(v12, rnd, 5, 3)
	if a[2] != PoStLeafChallenge(v1.SectorSize, rnd, 5, 32) || b[2] != PoStLeafChallenge(v1.SectorSize, rnd, 5, 2) {
		t.Error("challenge index: V1 must use sector_index·10 + n, V1_2 n")
	}
	for _, x := range append(a, b...) {
		if x >= 1<<30 {
			t.Fatalf("leaf %d out of range", x)
		}
	}
}

func TestPoStPartitionChallenges(t *testing.T) {
	info, _ := types.PoStProof(abi.RegisteredPoStProof_StackedDrgWindow2KiBV1)
	var rnd [32]byte
	rnd[0] = 5
	got, err := PoStPartitionChallenges(info, rnd, []uint64{7, 9}, 3)
	if err != nil {
		t.Fatal(err)
	}
	// Window 2 KiB: 2 sectors per partition, so sector 9 is sector index 3·2 + 1 = 7 and its
	// V1 challenge n has index 7·10 + n.
	if got[1][4] != PoStLeafChallenge(info.SectorSize, rnd, 9, 74) {
		t.Errorf("sector index not partition·2 + position")
	}
	if _, err := PoStPartitionChallenges(info, rnd, []uint64{1, 2, 3}, 0); err == nil {
		t.Error("3 sectors in a 2-sector partition accepted")
	}
}
