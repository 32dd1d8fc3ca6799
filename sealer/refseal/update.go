package refseal

import (
	"fmt"
	"math/bits"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/snarkpipe/snarkpipe/sealer/gadget"
	"github.com/snarkpipe/snarkpipe/sealer/update"
	"github.com/snarkpipe/snarkpipe/types"
	"github.com/snarkpipe/snarkpipe/types/vanilla"
)

// openTree is what a sector update needs of a Merkle tree: its nodes, root and openings.
type openTree interface {
	node(h int, i uint64) vanilla.Domain
	Root() vanilla.Domain
	Proof(leaf uint64) vanilla.MerkleProof
}

// SectorUpdate is a reference SnapDeals update (rust-fil-proofs storage-proofs-update
// vanilla.rs): tree R old over the old replica, tree D new over the new data, and tree R new
// over the new replica, node i encoded as r_old[i] + d_new[i]·rho(phi, i's h high bits).
type SectorUpdate struct {
	Info                         *types.UpdateProofInfo
	H                            int
	CommC                        vanilla.Domain
	CommROld, CommDNew, CommRNew vanilla.Domain
	treeROld, treeDNew, treeRNew openTree
}

// maxUpdateSize bounds Update to sizes whose three trees fit comfortably in memory.
const maxUpdateSize = types.SectorSize512MiB

// Update encodes data into the old replica of a sector with the given comm_c, using h high
// bits per rho (h must be one of the type's hs). Replica and data are the sector's nodes
// (32 bytes each, every node a canonical field element, as fr32 padding guarantees).
func Update(info *types.UpdateProofInfo, commC vanilla.Domain, oldReplica, data []byte, h int) (*SectorUpdate, error) {
	if info.SectorSize > maxUpdateSize {
		return nil, fmt.Errorf("refseal: reference update of %d bytes: use SynthUpdate above %d", info.SectorSize, maxUpdateSize)
	}
	if uint64(len(oldReplica)) != info.SectorSize || uint64(len(data)) != info.SectorSize {
		return nil, fmt.Errorf("refseal: replica %d and data %d bytes, want %d", len(oldReplica), len(data), info.SectorSize)
	}
	if _, ok := info.HSelect(h); !ok {
		return nil, fmt.Errorf("refseal: h = %d not allowed for %s", h, info.RustName)
	}
	n := info.Nodes()
	rOld, dNew := make([]vanilla.Domain, n), make([]vanilla.Domain, n)
	for i := range n {
		rOld[i] = vanilla.Domain(oldReplica[i*32 : i*32+32])
		dNew[i] = vanilla.Domain(data[i*32 : i*32+32])
	}
	u := &SectorUpdate{Info: info, H: h, CommC: commC}
	var err error
	if u.treeROld, err = buildDenseTree(false, info.Tree, rOld); err != nil {
		return nil, err
	}
	if u.treeDNew, err = buildDenseTree(true, types.TreeShape{Base: 2}, dNew); err != nil {
		return nil, err
	}
	if u.CommROld, err = commR(&commC, u.treeROld.Root()); err != nil {
		return nil, err
	}
	u.CommDNew = u.treeDNew.Root()
	rNew, err := encodeReplica(info, h, u.CommDNew, u.CommROld, rOld, dNew)
	if err != nil {
		return nil, err
	}
	if u.treeRNew, err = buildDenseTree(false, info.Tree, rNew); err != nil {
		return nil, err
	}
	u.CommRNew, err = commR(&commC, u.treeRNew.Root())
	return u, err
}

// encodeReplica computes every new replica node.
func encodeReplica(info *types.UpdateProofInfo, h int, commDNew, commROld vanilla.Domain, rOld, dNew []vanilla.Domain) ([]vanilla.Domain, error) {
	phi, err := phiOf(commDNew, commROld)
	if err != nil {
		return nil, err
	}
	shift := bits.TrailingZeros64(info.Nodes()) - h
	rhos := make([]fr.Element, 1<<h)
	for high := range rhos {
		rhos[high] = update.Rho(&phi, uint64(high))
	}
	out := make([]vanilla.Domain, len(rOld))
	err = parallelRange(len(out), func(lo, hi int) error {
		for i := lo; i < hi; i++ {
			v, err := encodeNode(&rOld[i], &dNew[i], &rhos[i>>shift])
			if err != nil {
				return fmt.Errorf("refseal: node %d: %w", i, err)
			}
			out[i] = v
		}
		return nil
	})
	return out, err
}

// encodeNode is r_new = r_old + d_new·rho.
func encodeNode(rOld, dNew *vanilla.Domain, rho *fr.Element) (vanilla.Domain, error) {
	r, err := fr.LittleEndian.Element((*[32]byte)(rOld))
	if err != nil {
		return vanilla.Domain{}, err
	}
	d, err := fr.LittleEndian.Element((*[32]byte)(dNew))
	if err != nil {
		return vanilla.Domain{}, err
	}
	d.Mul(&d, rho)
	r.Add(&r, &d)
	return vanilla.Domain(gadget.FrToBytesLE(&r)), nil
}

func phiOf(commDNew, commROld vanilla.Domain) (fr.Element, error) {
	d, err := fr.LittleEndian.Element((*[32]byte)(&commDNew))
	if err != nil {
		return fr.Element{}, err
	}
	r, err := fr.LittleEndian.Element((*[32]byte)(&commROld))
	if err != nil {
		return fr.Element{}, err
	}
	return update.Phi(&d, &r), nil
}

// commR is comm_r = Poseidon2(comm_c, root_r).
func commR(commC *vanilla.Domain, root vanilla.Domain) (vanilla.Domain, error) {
	c, err := fr.LittleEndian.Element((*[32]byte)(commC))
	if err != nil {
		return vanilla.Domain{}, fmt.Errorf("refseal: comm_c: %w", err)
	}
	r, err := fr.LittleEndian.Element((*[32]byte)(&root))
	if err != nil {
		return vanilla.Domain{}, err
	}
	out := update.CommR(&c, &r)
	return vanilla.Domain(gadget.FrToBytesLE(&out)), nil
}

// PartitionProof returns the vanilla proof of partition k (upstream prove_inner): comm_c,
// the partition's apex leaves (tree D nodes at the apex height) and, per challenge, the
// openings of tree R old, tree D new and tree R new.
func (u *SectorUpdate) PartitionProof(k int) (*vanilla.UpdatePartitionProof, error) {
	cfg := update.ConfigFor(u.Info)
	commRNew, err := fr.LittleEndian.Element((*[32]byte)(&u.CommRNew))
	if err != nil {
		return nil, err
	}
	challenges, err := cfg.Challenges(&commRNew, k)
	if err != nil {
		return nil, err
	}
	apexHeight := cfg.ChallengeBits() - cfg.PartitionBits() - cfg.ApexBits()
	p := &vanilla.UpdatePartitionProof{CommC: u.CommC, ApexLeaves: make([]vanilla.Domain, cfg.ApexLeafCount())}
	for i := range p.ApexLeaves {
		p.ApexLeaves[i] = u.treeDNew.node(apexHeight, uint64(k*cfg.ApexLeafCount()+i))
	}
	p.ChallengeProofs = make([]vanilla.UpdateChallengeProof, len(challenges))
	for i, c := range challenges {
		p.ChallengeProofs[i] = vanilla.UpdateChallengeProof{ROld: u.treeROld.Proof(c), DNew: u.treeDNew.Proof(c), RNew: u.treeRNew.Proof(c)}
	}
	return p, nil
}

// PartitionProofs returns every partition's vanilla proof, in order.
func (u *SectorUpdate) PartitionProofs() ([]*vanilla.UpdatePartitionProof, error) {
	out := make([]*vanilla.UpdatePartitionProof, u.Info.PartitionCount)
	for k := range out {
		p, err := u.PartitionProof(k)
		if err != nil {
			return nil, err
		}
		out[k] = p
	}
	return out, nil
}
