package refseal

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/filecoin-project/go-state-types/abi"

	"github.com/snarkpipe/snarkpipe/sealer/gadget"
	"github.com/snarkpipe/snarkpipe/sealer/graph"
	"github.com/snarkpipe/snarkpipe/types"
	"github.com/snarkpipe/snarkpipe/types/vanilla"
)

// Sector is a sector sealed in memory with everything needed to open any node.
type Sector struct {
	Info      *types.SealProofInfo
	ID        abi.SectorID
	Ticket    [32]byte
	ReplicaID vanilla.Domain
	CommD     vanilla.Domain
	CommC     vanilla.Domain
	CommRLast vanilla.Domain
	CommR     vanilla.Domain

	data   []vanilla.Domain   // unsealed nodes
	labels [][]vanilla.Domain // labels[l-1][node] for layers 1..L
	treeD  *tree
	treeC  *tree
	treeR  *tree
}

// maxSealSize bounds Seal to sizes that fit comfortably in memory.
const maxSealSize = types.SectorSize512MiB

// Seal seals data (exactly the sector size; every 32-byte node below 2^254, as fr32 padding
// guarantees) with the given registered seal proof, sector and ticket.
func Seal(info *types.SealProofInfo, id abi.SectorID, ticket [32]byte, data []byte) (*Sector, error) {
	if info.SectorSize > maxSealSize {
		return nil, fmt.Errorf("refseal: %s sectors are too large to seal in memory (at most %d bytes)", info.RustName, maxSealSize)
	}
	if uint64(len(data)) != info.SectorSize {
		return nil, fmt.Errorf("refseal: %d bytes of data for a %d-byte sector", len(data), info.SectorSize)
	}
	nodes := info.Nodes()
	s := &Sector{Info: info, ID: id, Ticket: ticket, data: make([]vanilla.Domain, nodes)}
	for i := range s.data {
		copy(s.data[i][:], data[32*i:])
		if s.data[i][31]&0xc0 != 0 {
			return nil, fmt.Errorf("refseal: data node %d is not fr32-padded (top bits of byte 31 set)", i)
		}
	}
	var err error
	if s.treeD, err = buildDenseTree(true, types.TreeShape{Base: 2}, s.data); err != nil {
		return nil, err
	}
	s.CommD = s.treeD.Root()
	s.ReplicaID = vanilla.Domain(types.ReplicaID(types.ProverID(id.Miner), id.Number, ticket, s.CommD, info.PoRepID))
	g, err := graph.ForSealProof(info)
	if err != nil {
		return nil, err
	}
	s.labels = labelLayers(g, &s.ReplicaID, info.Layers)
	if err := s.buildTreeC(); err != nil {
		return nil, err
	}
	if err := s.buildTreeR(); err != nil {
		return nil, err
	}
	h, err := hashPair(&s.CommC, &s.CommRLast)
	if err != nil {
		return nil, err
	}
	s.CommR = h
	return s, nil
}

// labelLayers computes every label of every layer (rust-fil-proofs create_label): layer 1
// hashes the 6 DRG parents' labels of layer 1, later layers also the 8 expander parents'
// labels of the previous layer, cycled to 37 parents; node 0 hashes no parents.
func labelLayers(g *graph.Graph, replicaID *vanilla.Domain, layers int) [][]vanilla.Domain {
	nodes := g.Nodes()
	out := make([][]vanilla.Domain, layers)
	var buf [64 + vanilla.TotalParents*32]byte
	var parents [graph.Degree]uint32
	for l := 1; l <= layers; l++ {
		cur := make([]vanilla.Domain, nodes)
		var prev []vanilla.Domain
		if l > 1 {
			prev = out[l-2]
		}
		for v := uint64(0); v < nodes; v++ {
			labelHeader(&buf, replicaID, uint32(l), v)
			if v == 0 {
				cur[v] = trimmed(sha256.Sum256(buf[:64]))
				continue
			}
			g.Parents(uint32(v), &parents)
			n := graph.BaseDegree
			if l > 1 {
				n = graph.Degree
			}
			for i := 0; i < vanilla.TotalParents; i++ {
				j := i % n
				var src *vanilla.Domain
				if j < graph.BaseDegree {
					src = &cur[parents[j]]
				} else {
					src = &prev[parents[j]]
				}
				copy(buf[64+32*i:], src[:])
			}
			cur[v] = trimmed(sha256.Sum256(buf[:]))
		}
		out[l-1] = cur
	}
	return out
}

func labelHeader(buf *[64 + vanilla.TotalParents*32]byte, replicaID *vanilla.Domain, layer uint32, node uint64) {
	copy(buf[:32], replicaID[:])
	binary.BigEndian.PutUint32(buf[32:], layer)
	binary.BigEndian.PutUint64(buf[36:], node)
	clear(buf[44:64])
}

func trimmed(d [32]byte) vanilla.Domain {
	d[31] &= 0x3f
	return vanilla.Domain(d)
}

// columnHash is the Poseidon hash (arity = layers) of a node's labels in layer order.
func columnHash(rows []vanilla.Domain) (vanilla.Domain, error) {
	in := make([]fr.Element, len(rows))
	for i := range rows {
		e, err := fr.LittleEndian.Element((*[32]byte)(&rows[i]))
		if err != nil {
			return vanilla.Domain{}, err
		}
		in[i] = e
	}
	c, err := gadget.PoseidonFor(len(rows))
	if err != nil {
		return vanilla.Domain{}, err
	}
	var out fr.Element
	if err := c.Hash(&out, in); err != nil {
		return vanilla.Domain{}, err
	}
	return vanilla.Domain(gadget.FrToBytesLE(&out)), nil
}

func (s *Sector) column(node uint64) []vanilla.Domain {
	rows := make([]vanilla.Domain, len(s.labels))
	for l := range s.labels {
		rows[l] = s.labels[l][node]
	}
	return rows
}

func (s *Sector) buildTreeC() error {
	leaves := make([]vanilla.Domain, len(s.data))
	err := parallelRange(len(leaves), func(lo, hi int) error {
		for v := lo; v < hi; v++ {
			h, err := columnHash(s.column(uint64(v)))
			if err != nil {
				return err
			}
			leaves[v] = h
		}
		return nil
	})
	if err != nil {
		return err
	}
	if s.treeC, err = buildDenseTree(false, s.Info.Tree, leaves); err != nil {
		return err
	}
	s.CommC = s.treeC.Root()
	return nil
}

// encode is the replica node: label_L + data in Fr.
func encode(key, data *vanilla.Domain) (vanilla.Domain, error) {
	k, err := fr.LittleEndian.Element((*[32]byte)(key))
	if err != nil {
		return vanilla.Domain{}, err
	}
	d, err := fr.LittleEndian.Element((*[32]byte)(data))
	if err != nil {
		return vanilla.Domain{}, err
	}
	k.Add(&k, &d)
	return vanilla.Domain(gadget.FrToBytesLE(&k)), nil
}

func (s *Sector) buildTreeR() error {
	last := s.labels[len(s.labels)-1]
	leaves := make([]vanilla.Domain, len(s.data))
	for v := range leaves {
		e, err := encode(&last[v], &s.data[v])
		if err != nil {
			return fmt.Errorf("refseal: data node %d: %w", v, err)
		}
		leaves[v] = e
	}
	var err error
	if s.treeR, err = buildDenseTree(false, s.Info.Tree, leaves); err != nil {
		return err
	}
	s.CommRLast = s.treeR.Root()
	return nil
}

func hashPair(a, b *vanilla.Domain) (vanilla.Domain, error) {
	x, err := fr.LittleEndian.Element((*[32]byte)(a))
	if err != nil {
		return vanilla.Domain{}, err
	}
	y, err := fr.LittleEndian.Element((*[32]byte)(b))
	if err != nil {
		return vanilla.Domain{}, err
	}
	h := gadget.HashPoseidon2(&x, &y)
	return vanilla.Domain(gadget.FrToBytesLE(&h)), nil
}

// Replica returns the sealed replica bytes (tree R's leaves).
func (s *Sector) Replica() []byte {
	out := make([]byte, 0, s.Info.SectorSize)
	for _, d := range s.treeR.dense[0] {
		out = append(out, d[:]...)
	}
	return out
}

// Data returns the unsealed data the sector was sealed from.
func (s *Sector) Data() []byte {
	out := make([]byte, 0, s.Info.SectorSize)
	for _, d := range s.data {
		out = append(out, d[:]...)
	}
	return out
}
