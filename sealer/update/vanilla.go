package update

import (
	"errors"
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/snarkpipe/snarkpipe/types"
	"github.com/snarkpipe/snarkpipe/types/vanilla"
)

// ErrVanilla reports a vanilla partition proof that cannot become a circuit (a value that is
// not a field element, or a path of the wrong shape).
var ErrVanilla = errors.New("update: unusable vanilla proof")

// FromVanilla builds partition pub.K's circuit from its vanilla proof (upstream
// circuit::PrivateInputs::new): the roots come from the first challenge's tree R proofs, the
// partition path from the top of its tree D proof. It checks shapes, not hashes (see
// sealer.VerifyUpdatePartition for that).
func FromVanilla(info *types.UpdateProofInfo, pub PublicInputs, p *vanilla.UpdatePartitionProof) (*Circuit, error) {
	if err := p.Validate(info); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrVanilla, err)
	}
	cfg := ConfigFor(info)
	c := &Circuit{Config: cfg, Public: pub}
	var err error
	if c.CommC, err = frOf(p.CommC); err != nil {
		return nil, err
	}
	first := &p.ChallengeProofs[0]
	if c.RootROld, err = frOf(first.ROld.Root); err != nil {
		return nil, err
	}
	if c.RootRNew, err = frOf(first.RNew.Root); err != nil {
		return nil, err
	}
	if c.ApexLeaves, err = frsOf(p.ApexLeaves); err != nil {
		return nil, err
	}
	dPath := first.DNew.Path()
	for _, e := range dPath[cfg.ChallengeBits()-cfg.PartitionBits():] {
		v, err := frOf(e.Hashes[0])
		if err != nil {
			return nil, err
		}
		c.PartitionPath = append(c.PartitionPath, v)
	}
	c.Challenges = make([]ChallengeProof, len(p.ChallengeProofs))
	for i := range p.ChallengeProofs {
		if err := challengeFromVanilla(cfg, &c.Challenges[i], &p.ChallengeProofs[i]); err != nil {
			return nil, fmt.Errorf("challenge %d: %w", i, err)
		}
	}
	return c, c.check()
}

func challengeFromVanilla(cfg Config, ch *ChallengeProof, v *vanilla.UpdateChallengeProof) error {
	var err error
	if ch.LeafROld, err = frOf(v.ROld.Leaf); err != nil {
		return err
	}
	if ch.LeafDNew, err = frOf(v.DNew.Leaf); err != nil {
		return err
	}
	if ch.LeafRNew, err = frOf(v.RNew.Leaf); err != nil {
		return err
	}
	if ch.PathROld, err = siblingsOf(v.ROld.Path()); err != nil {
		return err
	}
	if ch.PathRNew, err = siblingsOf(v.RNew.Path()); err != nil {
		return err
	}
	d := v.DNew.Path()[:cfg.pathToApex()]
	ch.PathDToApex = make([]fr.Element, len(d))
	for l, e := range d {
		if ch.PathDToApex[l], err = frOf(e.Hashes[0]); err != nil {
			return err
		}
	}
	return nil
}

func siblingsOf(path []vanilla.PathElement) ([][]fr.Element, error) {
	out := make([][]fr.Element, len(path))
	for l, e := range path {
		var err error
		if out[l], err = frsOf(e.Hashes); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func frsOf(ds []vanilla.Domain) ([]fr.Element, error) {
	out := make([]fr.Element, len(ds))
	for i, d := range ds {
		v, err := frOf(d)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

func frOf(d vanilla.Domain) (fr.Element, error) {
	v, err := fr.LittleEndian.Element((*[32]byte)(&d))
	if err != nil {
		return fr.Element{}, fmt.Errorf("%w: %x is not a field element", ErrVanilla, d[:])
	}
	return v, nil
}

// CommitmentFr converts a 32-byte commitment (LE field repr) into a field element.
func CommitmentFr(c [32]byte) (fr.Element, error) { return frOf(vanilla.Domain(c)) }

// Circuits builds every partition's circuit of a sector update proof as upstream's
// generate_empty_sector_update_proof_with_vanilla does: partition k gets the k-th vanilla
// proof, h is the type's HDefault, and the commitments must be canonical field elements
// (upstream try_from_bytes). Each circuit's InputVector gives its public inputs.
func Circuits(info *types.UpdateProofInfo, commROld, commDNew, commRNew [32]byte, proofs []*vanilla.UpdatePartitionProof) ([]*Circuit, error) {
	if len(proofs) != info.PartitionCount {
		return nil, fmt.Errorf("%w: %d partition proofs, want %d", ErrVanilla, len(proofs), info.PartitionCount)
	}
	pub := PublicInputs{H: info.HDefault}
	for _, c := range []struct {
		name string
		src  [32]byte
		dst  *fr.Element
	}{{"comm_r_old", commROld, &pub.CommROld}, {"comm_d_new", commDNew, &pub.CommDNew}, {"comm_r_new", commRNew, &pub.CommRNew}} {
		v, err := CommitmentFr(c.src)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", c.name, err)
		}
		*c.dst = v
	}
	out := make([]*Circuit, len(proofs))
	for k, p := range proofs {
		pub.K = k
		c, err := FromVanilla(info, pub, p)
		if err != nil {
			return nil, fmt.Errorf("partition %d: %w", k, err)
		}
		out[k] = c
	}
	return out, nil
}
