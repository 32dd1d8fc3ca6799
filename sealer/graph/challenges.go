package graph

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math/bits"

	"golang.org/x/crypto/blake2b"
	"golang.org/x/crypto/chacha20"

	"github.com/snarkpipe/snarkpipe/types"
)

// challengeFromBytes maps 32 bytes to a node in [1, nodes): (LE integer mod (nodes−1)) + 1
// (rust-fil-proofs bigint_to_challenge), so node 0 is never challenged.
func challengeFromBytes(b *[32]byte, nodes uint64) uint64 {
	m := nodes - 1
	var r uint64
	for i := 3; i >= 0; i-- {
		r = bits.Rem64(r, binary.LittleEndian.Uint64(b[8*i:]), m)
	}
	return r + 1
}

// InteractiveChallenges derives the challenges of partition k for V1 and V1_1 PoRep:
// challenge i is f(SHA-256(replica_id ‖ seed ‖ u32_le(k·C + i))).
func InteractiveChallenges(nodes uint64, replicaID, seed [32]byte, perPartition, k int) []uint64 {
	out := make([]uint64, perPartition)
	for i := range out {
		h := sha256.New()
		h.Write(replicaID[:])
		h.Write(seed[:])
		h.Write(binary.LittleEndian.AppendUint32(nil, uint32(perPartition*k+i)))
		out[i] = challengeFromDigest(h.Sum(nil), nodes)
	}
	return out
}

// niTag is the domain tag of non-interactive PoRep challenges.
const niTag = "filecoin.io|PoRep|1|NonInteractive|1"

// NIChallenges derives the challenges of partition k for NI-PoRep:
// f(SHA-256(tag ‖ replica_id ‖ comm_r ‖ u32_le(k·C + i))).
func NIChallenges(nodes uint64, replicaID, commR [32]byte, perPartition, k int) []uint64 {
	out := make([]uint64, perPartition)
	for i := range out {
		h := sha256.New()
		h.Write([]byte(niTag))
		h.Write(replicaID[:])
		h.Write(commR[:])
		h.Write(binary.LittleEndian.AppendUint32(nil, uint32(perPartition*k+i)))
		out[i] = challengeFromDigest(h.Sum(nil), nodes)
	}
	return out
}

func challengeFromDigest(d []byte, nodes uint64) uint64 {
	return challengeFromBytes((*[32]byte)(d), nodes)
}

// Synthetic PoRep constants (rust-fil-proofs challenges.rs, module synthetic).
const (
	DefaultSynthChallengeCount = 1 << 18
	synthGenerationKey         = "filecoin.io|PoRep|1|Synthetic|1|Generation"
	synthSelectionKey          = "filecoin.io|PoRep|1|Synthetic|1|Selection"
	synthNonce                 = "synth-porep\x00"
	synthChallengeSize         = 32
	synthIndexSize             = 4
)

// SynthGenerator derives synthetic PoRep challenges: challenge i is f of keystream bytes
// [32i, 32i+32) of ChaCha20 keyed with BLAKE2b-256_{Generation}(replica_id ‖ comm_r).
type SynthGenerator struct {
	nodes     uint64
	replicaID [32]byte
	count     uint64
	genKey    [32]byte
}

// NewSynthGenerator returns the generator with upstream's default count, min(nodes, 2^18).
func NewSynthGenerator(nodes uint64, replicaID, commR [32]byte) *SynthGenerator {
	return NewSynthGeneratorN(nodes, replicaID, commR, min(nodes, DefaultSynthChallengeCount))
}

// NewSynthGeneratorN returns a generator of count synthetic challenges (tests use small counts).
func NewSynthGeneratorN(nodes uint64, replicaID, commR [32]byte, count uint64) *SynthGenerator {
	return &SynthGenerator{nodes: nodes, replicaID: replicaID, count: count, genKey: keyedBlake2b256(synthGenerationKey, replicaID, commR)}
}

// Count is the number of synthetic challenges.
func (g *SynthGenerator) Count() uint64 { return g.count }

func keyedBlake2b256(key string, a, b [32]byte) (out [32]byte) {
	h, err := blake2b.New256([]byte(key))
	if err != nil {
		panic(err) // keys are constants shorter than 64 bytes
	}
	h.Write(a[:])
	h.Write(b[:])
	h.Sum(out[:0])
	return out
}

// keystreamAt returns n keystream bytes of ChaCha20(key, synth nonce) starting at byte offset.
func keystreamAt(key [32]byte, offset uint64, n int) []byte {
	c, err := chacha20.NewUnauthenticatedCipher(key[:], []byte(synthNonce))
	if err != nil {
		panic(err) // key and nonce sizes are fixed
	}
	c.SetCounter(uint32(offset / 64))
	skip := int(offset % 64)
	buf := make([]byte, skip+n)
	c.XORKeyStream(buf, buf)
	return buf[skip:]
}

// Challenge returns synthetic challenge i (i < Count()).
func (g *SynthGenerator) Challenge(i uint64) uint64 {
	b := keystreamAt(g.genKey, i*synthChallengeSize, synthChallengeSize)
	return challengeFromBytes((*[32]byte)(b), g.nodes)
}

// All returns every synthetic challenge in order.
func (g *SynthGenerator) All() []uint64 {
	ks := keystreamAt(g.genKey, 0, int(g.count)*synthChallengeSize)
	out := make([]uint64, g.count)
	for i := range out {
		out[i] = challengeFromBytes((*[32]byte)(ks[32*i:]), g.nodes)
	}
	return out
}

// Indexes returns which synthetic challenges partition k proves: u32_le of keystream bytes at
// offset 4·(k·C + i) of ChaCha20 keyed with BLAKE2b-256_{Selection}(replica_id ‖ seed), mod
// Count().
func (g *SynthGenerator) Indexes(seed [32]byte, perPartition, k int) []uint64 {
	key := keyedBlake2b256(synthSelectionKey, g.replicaID, seed)
	ks := keystreamAt(key, uint64(k*perPartition)*synthIndexSize, perPartition*synthIndexSize)
	out := make([]uint64, perPartition)
	for i := range out {
		out[i] = uint64(binary.LittleEndian.Uint32(ks[4*i:])) % g.count
	}
	return out
}

// PartitionChallenges returns the PoRep challenges of partition k of a synthetic proof.
func (g *SynthGenerator) PartitionChallenges(seed [32]byte, perPartition, k int) []uint64 {
	idx := g.Indexes(seed, perPartition, k)
	for i, j := range idx {
		idx[i] = g.Challenge(j)
	}
	return idx
}

// PoRepChallenges derives the challenges of partition k of a seal proof, with the derivation
// its type uses (interactive from the seed, synthetic from comm_r and the seed, NI from comm_r).
func PoRepChallenges(info *types.SealProofInfo, replicaID, commR, seed [32]byte, k int) ([]uint64, error) {
	if k < 0 || k >= info.PartitionCount {
		return nil, fmt.Errorf("graph: partition %d of %d", k, info.PartitionCount)
	}
	return DeriveChallenges(info.Mode, info.Nodes(), info.ChallengesPerPartition, replicaID, commR, seed, k)
}

// DeriveChallenges derives the perPartition challenges of partition k for any PoRep
// configuration (upstream test configurations use porep ids outside the registered table).
func DeriveChallenges(mode types.ChallengeMode, nodes uint64, perPartition int, replicaID, commR, seed [32]byte, k int) ([]uint64, error) {
	switch mode {
	case types.ChallengeInteractive:
		return InteractiveChallenges(nodes, replicaID, seed, perPartition, k), nil
	case types.ChallengeSynthetic:
		return NewSynthGenerator(nodes, replicaID, commR).PartitionChallenges(seed, perPartition, k), nil
	case types.ChallengeNonInteractive:
		return NIChallenges(nodes, replicaID, commR, perPartition, k), nil
	}
	return nil, fmt.Errorf("graph: unknown challenge mode %v", mode)
}

// ChallengeParents is a challenged node with its parents, in the order they enter the PoRep
// public inputs: 6 DRG parents, then 8 expander parents.
type ChallengeParents struct {
	Challenge uint64
	Base      [BaseDegree]uint32
	Exp       [ExpDegree]uint32
}

// WithParents pairs each challenge with its parents in g.
func (g *Graph) WithParents(challenges []uint64) ([]ChallengeParents, error) {
	out := make([]ChallengeParents, len(challenges))
	for i, c := range challenges {
		if c >= g.nodes {
			return nil, fmt.Errorf("graph: challenge %d not below %d nodes", c, g.nodes)
		}
		out[i].Challenge = c
		g.BaseParents(uint32(c), &out[i].Base)
		g.ExpanderParents(uint32(c), &out[i].Exp)
	}
	return out, nil
}

// ConfigChallenges derives the challenges of partition k of a PoRep configuration.
func ConfigChallenges(cfg types.PoRepConfig, replicaID, commR, seed [32]byte, k int) ([]uint64, error) {
	perPartition, err := cfg.ChallengesPerPartition()
	if err != nil {
		return nil, err
	}
	if k < 0 || k >= cfg.Partitions {
		return nil, fmt.Errorf("graph: partition %d of %d", k, cfg.Partitions)
	}
	return DeriveChallenges(cfg.Mode, cfg.SectorSize/types.NodeSize, perPartition, replicaID, commR, seed, k)
}
