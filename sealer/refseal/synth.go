package refseal

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/filecoin-project/go-state-types/abi"

	"github.com/snarkpipe/snarkpipe/sealer/graph"
	"github.com/snarkpipe/snarkpipe/types"
	"github.com/snarkpipe/snarkpipe/types/vanilla"
)

// ErrNotSynthesizable is returned for seal proof types whose challenges cannot be faked with
// sparse trees.
var ErrNotSynthesizable = errors.New("refseal: synthetic C1 outputs need interactive challenges (V1 or V1_1): " +
	"synthetic-PoRep and NI-PoRep challenges are derived from comm_r, and comm_r commits (through trees C and R) " +
	"to the labels of the challenged nodes themselves, so choosing the challenged nodes first would need a fixed " +
	"point of Poseidon/SHA-256; a valid output needs the whole sector sealed")

// synthRand is a deterministic stream of 32-byte values keyed by a seed and a purpose.
type synthRand struct{ seed uint64 }

func (r synthRand) bytes(purpose string, a, b uint64) [32]byte {
	var buf [24]byte
	binary.LittleEndian.PutUint64(buf[0:], r.seed)
	binary.LittleEndian.PutUint64(buf[8:], a)
	binary.LittleEndian.PutUint64(buf[16:], b)
	h := sha256.New()
	h.Write([]byte("snarkpipe/refseal/synth/" + purpose))
	h.Write(buf[:])
	var out [32]byte
	h.Sum(out[:0])
	return out
}

// fr returns a canonical field element (top two bits cleared).
func (r synthRand) fr(purpose string, a, b uint64) vanilla.Domain {
	return trimmed(r.bytes(purpose, a, b))
}

// synthReplica is a sector of zero data in which only the challenged nodes carry real
// labels (computed from their parents' labels); every other label is pseudo-random. Trees
// C and R are sparse over the opened nodes.
type synthReplica struct {
	info       *types.SealProofInfo
	graph      *graph.Graph
	rnd        synthRand
	replicaID  vanilla.Domain
	challenged map[uint64]bool
	labels     map[[2]uint64]vanilla.Domain // (layer, node) → label, filled lazily
	treeD      *tree
	treeC      *tree
	treeR      *tree
}

func (s *synthReplica) label(layer int, node uint64) vanilla.Domain {
	key := [2]uint64{uint64(layer), node}
	if v, ok := s.labels[key]; ok {
		return v
	}
	var v vanilla.Domain
	if s.challenged[node] {
		v = s.computeLabel(layer, node)
	} else {
		v = s.rnd.fr("label", uint64(layer), node)
	}
	s.labels[key] = v
	return v
}

// computeLabel hashes the node's parents as SDR does. Base parents are smaller nodes of the
// same layer and expander parents sit in the previous layer, so the recursion through
// challenged parents ends.
func (s *synthReplica) computeLabel(layer int, node uint64) vanilla.Domain {
	var parents [graph.Degree]uint32
	s.graph.Parents(uint32(node), &parents)
	n := graph.BaseDegree
	if layer > 1 {
		n = graph.Degree
	}
	var buf [64 + vanilla.TotalParents*32]byte
	labelHeader(&buf, &s.replicaID, uint32(layer), node)
	for i := 0; i < vanilla.TotalParents; i++ {
		j := i % n
		var v vanilla.Domain
		if j < graph.BaseDegree {
			v = s.label(layer, uint64(parents[j]))
		} else {
			v = s.label(layer-1, uint64(parents[j]))
		}
		copy(buf[64+32*i:], v[:])
	}
	return trimmed(sha256.Sum256(buf[:]))
}

func (s *synthReplica) proofD(node uint64) vanilla.MerkleProof { return s.treeD.Proof(node) }
func (s *synthReplica) proofC(node uint64) vanilla.MerkleProof { return s.treeC.Proof(node) }
func (s *synthReplica) proofR(node uint64) vanilla.MerkleProof { return s.treeR.Proof(node) }

// SynthC1 generates a C1 output of the full shape of an interactive seal proof (any size,
// meant for 512 MiB, 32 GiB and 64 GiB), deterministic from seed, that passes native
// verification. It also returns the sector it claims to be (for the replica_id check).
func SynthC1(info *types.SealProofInfo, seed uint64) (*vanilla.SealCommitPhase1Output, abi.SectorID, error) {
	if info.Mode != types.ChallengeInteractive {
		return nil, abi.SectorID{}, fmt.Errorf("%s: %w", info.RustName, ErrNotSynthesizable)
	}
	rnd := synthRand{seed: seed}
	sid := abi.SectorID{Miner: abi.ActorID(1000 + seed%1000), Number: abi.SectorNumber(seed)}
	ticket, porepSeed := rnd.fr("ticket", 0, 0), rnd.bytes("seed", 0, 0)
	nodes := info.Nodes()
	s := &synthReplica{info: info, rnd: rnd, challenged: map[uint64]bool{}, labels: map[[2]uint64]vanilla.Domain{}}
	var err error
	if s.treeD, err = buildSparseTree(true, types.TreeShape{Base: 2}, nodes, map[uint64]vanilla.Domain{}, vanilla.Domain{}); err != nil {
		return nil, sid, err
	}
	commD := s.treeD.Root()
	s.replicaID = vanilla.Domain(types.ReplicaID(types.ProverID(sid.Miner), sid.Number, ticket, commD, info.PoRepID))
	if s.graph, err = graph.ForSealProof(info); err != nil {
		return nil, sid, err
	}
	opened := map[uint64]bool{}
	var parents [graph.Degree]uint32
	for k := 0; k < info.PartitionCount; k++ {
		ch, err := graph.PoRepChallenges(info, s.replicaID, vanilla.Domain{}, porepSeed, k)
		if err != nil {
			return nil, sid, err
		}
		for _, c := range ch {
			s.challenged[c] = true
			opened[c] = true
			s.graph.Parents(uint32(c), &parents)
			for _, p := range parents {
				opened[uint64(p)] = true
			}
		}
	}
	if err := s.buildTrees(opened); err != nil {
		return nil, sid, err
	}
	commC, commRLast := s.treeC.Root(), s.treeR.Root()
	commR, err := hashPair(&commC, &commRLast)
	if err != nil {
		return nil, sid, err
	}
	pub := &c1Public{info: info, replicaID: s.replicaID, commD: commD, commR: commR, seed: porepSeed, ticket: ticket}
	out, err := buildC1(s, s.graph, pub)
	return out, sid, err
}

// buildTrees fills tree C with the column hashes of the opened nodes and tree R with the
// replica nodes of the challenged ones (label_L + 0, the data being zero).
func (s *synthReplica) buildTrees(opened map[uint64]bool) error {
	nodes := make([]uint64, 0, len(opened))
	for v := range opened {
		nodes = append(nodes, v)
	}
	rows := make([][]vanilla.Domain, len(nodes))
	for i, v := range nodes { // labels first: the lazy label map is not safe for concurrent use
		rows[i] = make([]vanilla.Domain, s.info.Layers)
		for l := range rows[i] {
			rows[i][l] = s.label(l+1, v)
		}
	}
	hashes := make([]vanilla.Domain, len(nodes))
	err := parallelRange(len(nodes), func(lo, hi int) error {
		for i := lo; i < hi; i++ {
			h, err := columnHash(rows[i])
			if err != nil {
				return err
			}
			hashes[i] = h
		}
		return nil
	})
	if err != nil {
		return err
	}
	colLeaves := make(map[uint64]vanilla.Domain, len(nodes))
	repLeaves := map[uint64]vanilla.Domain{}
	for i, v := range nodes {
		colLeaves[v] = hashes[i]
		if s.challenged[v] {
			repLeaves[v] = rows[i][s.info.Layers-1]
		}
	}
	n := s.info.Nodes()
	if s.treeC, err = buildSparseTree(false, s.info.Tree, n, colLeaves, vanilla.Domain{}); err != nil {
		return err
	}
	s.treeR, err = buildSparseTree(false, s.info.Tree, n, repLeaves, vanilla.Domain{})
	return err
}

// SynthPoSt is a synthetic PoSt: the vanilla proofs of one Winning PoSt or of one full
// Window PoSt partition (partition 0), and the public values they verify against.
type SynthPoSt struct {
	Proof      *types.PoStProofInfo
	Miner      abi.ActorID
	Randomness []byte
	Sectors    []SynthSector
	Proofs     []*vanilla.FallbackPoStSectorProof
}

// SynthSector is a challenged sector of a SynthPoSt.
type SynthSector struct {
	Number abi.SectorNumber
	CommR  types.Commitment
}

// SynthPoStProofs generates, deterministic from seed, the vanilla proofs of a Winning PoSt
// (one sector, 66 challenges) or of a full Window PoSt partition (2 / 2349 / 2300 sectors,
// 10 challenges each), each sector with a sparse tree R whose only non-default leaves are
// the challenged ones.
func SynthPoStProofs(info *types.PoStProofInfo, seed uint64) (*SynthPoSt, error) {
	rnd := synthRand{seed: seed}
	r := rnd.bytes("randomness", 0, 0)
	out := &SynthPoSt{Proof: info, Miner: abi.ActorID(1000 + seed%1000), Randomness: r[:]}
	masked := types.MaskFr(r)
	n := info.SectorsPerPartition
	out.Sectors = make([]SynthSector, n)
	out.Proofs = make([]*vanilla.FallbackPoStSectorProof, n)
	err := parallelRange(n, func(lo, hi int) error {
		for i := lo; i < hi; i++ {
			number := abi.SectorNumber(seed*10000 + uint64(i))
			challenges, err := graph.PoStSectorChallenges(info, masked, uint64(number), i)
			if err != nil {
				return err
			}
			leaves := make(map[uint64]vanilla.Domain, len(challenges))
			for _, c := range challenges {
				leaves[c] = rnd.fr("replica", uint64(number), c)
			}
			t, err := buildSparseTree(false, info.Tree, info.Nodes(), leaves, vanilla.Domain{})
			if err != nil {
				return err
			}
			rep, err := newPoStReplica(number, rnd.fr("comm_c", uint64(number), 0), t)
			if err != nil {
				return err
			}
			if out.Proofs[i], err = rep.Vanilla(info, out.Randomness, i); err != nil {
				return err
			}
			out.Sectors[i] = SynthSector{Number: number, CommR: types.Commitment(rep.CommR)}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
