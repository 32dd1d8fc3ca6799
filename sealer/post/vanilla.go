package post

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/snarkpipe/snarkpipe/sealer/gadget"
	"github.com/snarkpipe/snarkpipe/sealer/porep"
	"github.com/snarkpipe/snarkpipe/types"
	"github.com/snarkpipe/snarkpipe/types/vanilla"
)

// ErrVanilla reports vanilla proofs the circuit cannot be built from.
var ErrVanilla = errors.New("post: unusable vanilla proof")

// FromVanilla builds the circuit of partition k from the sector proofs, in the order of
// the public sectors (upstream partition_vanilla_proofs + FallbackPoStCompound::circuit):
//   - Window: the partition's sectors, each with its 10 inclusion proofs; a partial
//     partition repeats its last sector until it is full;
//   - Winning: the single sector proof's 66 inclusion proofs become 66 sector copies with
//     one leaf each.
//
// Shapes are checked against info; hashes are not (an inconsistent proof gives an
// unsatisfied circuit).
func FromVanilla(info *types.PoStProofInfo, proofs []*vanilla.FallbackPoStSectorProof, k int) (*Circuit, error) {
	for i, p := range proofs {
		if p == nil {
			return nil, fmt.Errorf("%w: proof %d is nil", ErrVanilla, i)
		}
	}
	err := forEachSector(len(proofs), func(i int) error {
		if err := proofs[i].Validate(info); err != nil {
			return fmt.Errorf("%w: sector %d: %v", ErrVanilla, proofs[i].SectorID, err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	cfg := ConfigFor(info)
	var sectors []Sector
	if info.Kind == types.PoStWinning {
		if len(proofs) != 1 || k != 0 {
			return nil, fmt.Errorf("%w: Winning PoSt takes 1 sector proof and partition 0", ErrVanilla)
		}
		var err error
		if sectors, err = winningSectors(proofs[0]); err != nil {
			return nil, err
		}
	} else {
		per := cfg.SectorCount
		if k < 0 || k*per >= len(proofs) {
			return nil, fmt.Errorf("%w: partition %d of %d sector proofs", ErrVanilla, k, len(proofs))
		}
		mine := proofs[k*per : min((k+1)*per, len(proofs))]
		sectors = make([]Sector, len(mine), per)
		err := forEachSector(len(mine), func(i int) (err error) {
			sectors[i], err = sectorFromVanilla(mine[i], mine[i].Sectors[0].InclusionProofs)
			return err
		})
		if err != nil {
			return nil, err
		}
		for len(sectors) < per {
			sectors = append(sectors, sectors[len(sectors)-1])
		}
	}
	c := &Circuit{Config: cfg, Sectors: sectors}
	if err := c.check(); err != nil {
		return nil, err
	}
	return c, nil
}

func winningSectors(p *vanilla.FallbackPoStSectorProof) ([]Sector, error) {
	incl := p.Sectors[0].InclusionProofs
	out := make([]Sector, len(incl))
	for i := range incl {
		s, err := sectorFromVanilla(p, incl[i:i+1])
		if err != nil {
			return nil, err
		}
		out[i] = s
	}
	return out, nil
}

// sectorFromVanilla takes comm_r from the sector proof (the public sector's comm_r),
// comm_c and comm_r_last from its vanilla sector proof, and the given inclusion proofs.
func sectorFromVanilla(p *vanilla.FallbackPoStSectorProof, incl []vanilla.MerkleProof) (Sector, error) {
	var s Sector
	var err error
	vs := &p.Sectors[0]
	for _, f := range []struct {
		dst *fr.Element
		src vanilla.Domain
	}{{&s.CommR, p.CommR}, {&s.CommC, vs.CommC}, {&s.CommRLast, vs.CommRLast}} {
		if *f.dst, err = frOf(f.src); err != nil {
			return Sector{}, fmt.Errorf("sector %d: %w", p.SectorID, err)
		}
	}
	s.Leaves = make([]Leaf, len(incl))
	for j := range incl {
		if s.Leaves[j].Value, err = frOf(incl[j].Leaf); err != nil {
			return Sector{}, err
		}
		if s.Leaves[j].Path, err = porep.PathFromVanilla(&incl[j]); err != nil {
			return Sector{}, fmt.Errorf("%w: sector %d leaf %d: %v", ErrVanilla, p.SectorID, j, err)
		}
	}
	return s, nil
}

func frOf(d vanilla.Domain) (fr.Element, error) {
	b := [32]byte(d)
	v, err := gadget.FrFromBytesLE(&b)
	if err != nil {
		return fr.Element{}, fmt.Errorf("%w: %v", ErrVanilla, err)
	}
	return v, nil
}

// forEachSector runs f(0) … f(n−1) on all CPUs and returns the error of the lowest index
// that failed: a 32 GiB Window PoSt partition's 2,349 sector proofs take 0.27 s to
// convert on two cores, time a proof's latency pays before anything else starts.
func forEachSector(n int, f func(i int) error) error {
	errs := make([]error, n)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				errs[i] = f(i)
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
