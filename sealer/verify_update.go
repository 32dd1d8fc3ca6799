package sealer

import (
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/snarkpipe/snarkpipe/sealer/gadget"
	"github.com/snarkpipe/snarkpipe/sealer/update"
	"github.com/snarkpipe/snarkpipe/types"
	"github.com/snarkpipe/snarkpipe/types/vanilla"
)

// KindUpdate names SnapDeals (EmptySectorUpdate) vanilla proofs in errors.
const KindUpdate = "update"

// UpdatePublic are the public values of a sector update proof: the update type, the
// commitments (comm_r_old = the sector key's comm_r, comm_d_new and comm_r_new as the chain
// knows them) and h (production provers use the type's HDefault).
type UpdatePublic struct {
	Proof                        *types.UpdateProofInfo
	CommROld, CommDNew, CommRNew types.Commitment
	H                            int
}

// VerifyUpdate checks every partition proof of a sector update natively; the count must be
// the type's partitions. The first failure is returned as a *VerifyError.
func VerifyUpdate(pub *UpdatePublic, proofs []*vanilla.UpdatePartitionProof) error {
	if len(proofs) != pub.Proof.PartitionCount {
		return updateErr(-1, -1, nil, fail(CheckShape, "", "%d partition proofs, want %d", len(proofs), pub.Proof.PartitionCount))
	}
	for k, p := range proofs {
		if err := VerifyUpdatePartition(pub, k, p); err != nil {
			return err
		}
	}
	return nil
}

// VerifyUpdatePartition checks partition k's vanilla proof against everything the circuit
// enforces: comm_r_old/new = Poseidon2(comm_c, root), every challenge is the derived one and
// opens tree R old, tree D new and tree R new at it, the new replica leaf is the encoding
// r_old + d_new·rho, the tree D paths pass through the selected apex leaf, and the apex
// tree with the partition path hashes to comm_d_new.
func VerifyUpdatePartition(pub *UpdatePublic, k int, p *vanilla.UpdatePartitionProof) error {
	info := pub.Proof
	cfg := update.ConfigFor(info)
	located := func(ch int, node *uint64, f *failure) error { return updateErr(k, ch, node, f) }
	if k < 0 || k >= info.PartitionCount {
		return located(-1, nil, fail(CheckShape, "", "partition %d of %d", k, info.PartitionCount))
	}
	if _, ok := info.HSelect(pub.H); !ok {
		return located(-1, nil, fail(CheckShape, "h", "h = %d not allowed for %s", pub.H, info.RustName))
	}
	if err := p.Validate(info); err != nil {
		return located(-1, nil, fail(CheckShape, "", "%v", err))
	}
	rootROld, rootRNew := p.ChallengeProofs[0].ROld.Root, p.ChallengeProofs[0].RNew.Root
	for _, c := range []struct {
		where string
		root  vanilla.Domain
		want  types.Commitment
	}{{"comm_r_old", rootROld, pub.CommROld}, {"comm_r_new", rootRNew, pub.CommRNew}} {
		got, f := commR(&p.CommC, &c.root)
		if f != nil {
			return located(-1, nil, f)
		}
		if got != vanilla.Domain(c.want) {
			return located(-1, nil, fail(CheckCommR, c.where, "Poseidon2(comm_c, root) = %x, public %x", got[:], c.want[:]))
		}
	}
	commDNew, commROld, commRNew, f := updateCommitments(pub)
	if f != nil {
		return located(-1, nil, f)
	}
	challenges, err := cfg.Challenges(&commRNew, k)
	if err != nil {
		return located(-1, nil, fail(CheckShape, "", "%v", err))
	}
	if f := checkApexTree(cfg, k, p, vanilla.Domain(pub.CommDNew)); f != nil {
		return located(-1, nil, f)
	}
	phi := update.Phi(&commDNew, &commROld)
	tR, tD := treeR(info.SectorShape), treeD(info.SectorShape)
	for i := range p.ChallengeProofs {
		c := challenges[i]
		if f := checkUpdateChallenge(cfg, pub, p, i, c, &phi, tR, tD); f != nil {
			return located(i, &c, f)
		}
	}
	return nil
}

func updateCommitments(pub *UpdatePublic) (d, rOld, rNew fr.Element, f *failure) {
	for _, c := range []struct {
		where string
		src   types.Commitment
		dst   *fr.Element
	}{{"comm_d_new", pub.CommDNew, &d}, {"comm_r_old", pub.CommROld, &rOld}, {"comm_r_new", pub.CommRNew, &rNew}} {
		dom := vanilla.Domain(c.src)
		if *c.dst, f = toFr(&dom, c.where); f != nil {
			return
		}
	}
	return
}

// checkUpdateChallenge checks challenge i (node c) of partition proof p.
func checkUpdateChallenge(cfg update.Config, pub *UpdatePublic, p *vanilla.UpdatePartitionProof, i int, c uint64, phi *fr.Element, tR, tD merkleTree) *failure {
	ch := &p.ChallengeProofs[i]
	first := &p.ChallengeProofs[0]
	if ch.ROld.Root != first.ROld.Root || ch.RNew.Root != first.RNew.Root {
		return fail(CheckSameRoots, "tree R roots", "challenge roots differ from the first challenge's")
	}
	if ch.DNew.Root != vanilla.Domain(pub.CommDNew) {
		return fail(CheckRoot, "tree D new path", "root %x, comm_d_new %x", ch.DNew.Root[:], pub.CommDNew[:])
	}
	for _, o := range []struct {
		t     merkleTree
		proof *vanilla.MerkleProof
		where string
	}{{tR, &ch.ROld, "tree R old path"}, {tD, &ch.DNew, "tree D new path"}, {tR, &ch.RNew, "tree R new path"}} {
		if f := o.t.verify(o.proof, c, o.where); f != nil {
			return f
		}
	}
	var rOld, dNew fr.Element
	var f *failure
	if rOld, f = toFr(&ch.ROld.Leaf, "tree R old leaf"); f != nil {
		return f
	}
	if dNew, f = toFr(&ch.DNew.Leaf, "tree D new leaf"); f != nil {
		return f
	}
	rho := update.Rho(phi, cfg.High(c, pub.H))
	dNew.Mul(&dNew, &rho)
	rOld.Add(&rOld, &dNew)
	if want := vanilla.Domain(gadget.FrToBytesLE(&rOld)); want != ch.RNew.Leaf {
		return fail(CheckEncoding, "tree R new leaf", "r_old + d_new·rho = %x, leaf %x", want[:], ch.RNew.Leaf[:])
	}
	// The circuit proves the low tree D path up to the apex leaf selected by c's bits, and
	// uses the first challenge's partition path: both must agree with this proof.
	path := ch.DNew.Path()
	toApex := cfg.ChallengeBits() - cfg.PartitionBits() - cfg.ApexBits()
	node := ch.DNew.Leaf
	for l := range toApex {
		node = shaStep(node, path[l])
	}
	apexIdx := (c >> toApex) & uint64(cfg.ApexLeafCount()-1)
	if node != p.ApexLeaves[apexIdx] {
		return fail(CheckPath, "apex leaf", "tree D path reaches %x at the apex height, apex leaf %d is %x", node[:], apexIdx, p.ApexLeaves[apexIdx][:])
	}
	firstPath := first.DNew.Path()
	for l := cfg.ChallengeBits() - cfg.PartitionBits(); l < cfg.ChallengeBits(); l++ {
		if path[l].Hashes[0] != firstPath[l].Hashes[0] {
			return fail(CheckSameRoots, "partition path", "level %d sibling differs from the first challenge's", l)
		}
	}
	return nil
}

// checkApexTree hashes the apex leaves to the partition's apex root and, along the first
// challenge's partition path (positions from k's bits), up to comm_d_new.
func checkApexTree(cfg update.Config, k int, p *vanilla.UpdatePartitionProof, commD vanilla.Domain) *failure {
	row := append([]vanilla.Domain(nil), p.ApexLeaves...)
	for len(row) > 1 {
		for i := range len(row) / 2 {
			row[i] = gadget.NodeHash((*[32]byte)(&row[2*i]), (*[32]byte)(&row[2*i+1]))
		}
		row = row[:len(row)/2]
	}
	node := row[0]
	path := p.ChallengeProofs[0].DNew.Path()
	for i := range cfg.PartitionBits() {
		e := path[cfg.ChallengeBits()-cfg.PartitionBits()+i]
		node = shaStep(node, vanilla.PathElement{Hashes: e.Hashes, Index: uint64(k>>i) & 1})
	}
	if node != commD {
		return fail(CheckPath, "apex tree", "apex root and partition path hash to %x, comm_d_new %x", node[:], commD[:])
	}
	return nil
}

// shaStep hashes node with its tree D sibling at the element's position.
func shaStep(node vanilla.Domain, e vanilla.PathElement) vanilla.Domain {
	sib := e.Hashes[0]
	if e.Index == 0 {
		return gadget.NodeHash((*[32]byte)(&node), (*[32]byte)(&sib))
	}
	return gadget.NodeHash((*[32]byte)(&sib), (*[32]byte)(&node))
}

func updateErr(partition, challenge int, node *uint64, f *failure) *VerifyError {
	e := &VerifyError{Kind: KindUpdate, Partition: partition, Challenge: challenge, Position: -1, Check: f.check, Where: f.where, Detail: f.detail}
	if node != nil {
		e.HasNode, e.Node = true, *node
	}
	return e
}

// UpdatePublicString renders the public values for logs.
func (p *UpdatePublic) String() string {
	return fmt.Sprintf("%s comm_r_old %x comm_d_new %x comm_r_new %x h %d", p.Proof.RustName, p.CommROld[:], p.CommDNew[:], p.CommRNew[:], p.H)
}
