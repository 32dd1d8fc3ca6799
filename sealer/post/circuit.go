package post

import (
	"errors"
	"fmt"
	"math/bits"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/snarkpipe/snarkpipe/prover"
	"github.com/snarkpipe/snarkpipe/prover/r1cs"
	"github.com/snarkpipe/snarkpipe/sealer/gadget"
	"github.com/snarkpipe/snarkpipe/sealer/porep"
	"github.com/snarkpipe/snarkpipe/types"
)

// ErrConfig reports a circuit configuration or circuit value of the wrong shape.
var ErrConfig = errors.New("post: invalid circuit")

// Config fixes the R1CS: the sector's tree R, the challenged leaves per sector and the
// sectors per partition. Winning is 66 sectors × 1 challenge, Window 2349 × 10 at 32 GiB.
type Config struct {
	ID             prover.CircuitID
	Nodes          uint64
	Tree           types.TreeShape
	ChallengeCount int
	SectorCount    int
}

// ConfigFor returns the circuit configuration of a registered PoSt proof.
func ConfigFor(info *types.PoStProofInfo) Config {
	return Config{
		ID:             prover.CircuitID(info.CircuitID),
		Nodes:          info.Nodes(),
		Tree:           info.Tree,
		ChallengeCount: info.CircuitChallengeCount,
		SectorCount:    info.CircuitSectorCount,
	}
}

// NumInputs is the number of public inputs, ONE included: 1 + sectors·(1 + challenges).
func (c Config) NumInputs() int { return 1 + c.SectorCount*(1+c.ChallengeCount) }

func (c Config) treeShape() gadget.TreeShape {
	return gadget.TreeShape{Hasher: gadget.TreePoseidon, Base: c.Tree.Base, Sub: c.Tree.Sub, Top: c.Tree.Top}
}

// arities returns the arity of every level of a tree-R path.
func (c Config) arities() ([]int, error) {
	if err := c.treeShape().Validate(); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrConfig, err)
	}
	leaves := c.Nodes
	for _, a := range []int{c.Tree.Sub, c.Tree.Top} {
		if a > 0 {
			leaves /= uint64(a)
		}
	}
	k := bits.TrailingZeros(uint(c.Tree.Base))
	lb := bits.TrailingZeros64(leaves)
	if leaves == 0 || leaves&(leaves-1) != 0 || lb == 0 || lb%k != 0 {
		return nil, fmt.Errorf("%w: %d nodes do not fill a %s tree", ErrConfig, c.Nodes, c.Tree)
	}
	return c.treeShape().Levels(lb / k), nil
}

// Validate checks that the configuration describes a circuit upstream builds.
func (c Config) Validate() error {
	if c.ChallengeCount < 1 || c.SectorCount < 1 {
		return fmt.Errorf("%w: %d sectors × %d challenges", ErrConfig, c.SectorCount, c.ChallengeCount)
	}
	_, err := c.arities()
	return err
}

// Leaf is one challenged leaf of tree R with its inclusion path.
type Leaf struct {
	Value fr.Element
	Path  porep.Path
}

// Sector is one sector copy in the circuit (upstream fallback::Sector).
type Sector struct {
	CommR, CommC, CommRLast fr.Element
	Leaves                  []Leaf
}

// Circuit is one partition of a Fallback PoSt proof.
type Circuit struct {
	Config
	Sectors []Sector
}

var _ prover.Circuit = (*Circuit)(nil)

// ID names the R1CS.
func (c *Circuit) ID() prover.CircuitID { return c.Config.ID }

// Synthesize emits every sector in order (spec §8.1). Upstream's "extendable" path builds
// sector groups in separate systems and concatenates them, which yields this same order.
func (c *Circuit) Synthesize(cs r1cs.ConstraintSystem) error {
	if err := c.check(); err != nil {
		return err
	}
	for i := range c.Sectors {
		if err := c.synthesizeSector(cs, &c.Sectors[i]); err != nil {
			return fmt.Errorf("post: sector %d: %w", i, err)
		}
	}
	return nil
}

var _ prover.PartedCircuit = (*Circuit)(nil)

// Parts describes the circuit as its sectors (prover.PartedCircuit), with an empty head:
// every sector allocates the same variables, counted on sector 0, and its rows refer only
// to them and ONE.
func (c *Circuit) Parts() (r1cs.PartsLayout, error) {
	if err := c.check(); err != nil {
		return r1cs.PartsLayout{}, err
	}
	per := r1cs.NewCounter()
	if err := c.synthesizeSector(per, &c.Sectors[0]); err != nil {
		return r1cs.PartsLayout{}, fmt.Errorf("post: sector 0: %w", err)
	}
	sz := per.Sizes() // the counter holds ONE
	return r1cs.PartsLayout{N: len(c.Sectors), InputsPer: sz.NumInputs - 1, AuxPer: sz.NumAux}, nil
}

// SynthesizeHead synthesizes nothing: the sectors share no variables but ONE.
func (c *Circuit) SynthesizeHead(r1cs.ConstraintSystem) error { return nil }

// SynthesizePart synthesizes sector i alone (prover.PartedCircuit).
func (c *Circuit) SynthesizePart(cs r1cs.ConstraintSystem, i int) error {
	arities, err := c.arities()
	if err != nil {
		return err
	}
	if i < 0 || i >= len(c.Sectors) {
		return fmt.Errorf("%w: part %d of %d sectors", ErrConfig, i, len(c.Sectors))
	}
	if err := c.checkSector(i, len(arities)); err != nil {
		return err
	}
	if err := c.synthesizeSector(cs, &c.Sectors[i]); err != nil {
		return fmt.Errorf("post: sector %d: %w", i, err)
	}
	return nil
}

func (c *Circuit) synthesizeSector(cs r1cs.ConstraintSystem, s *Sector) error {
	commRLast := gadget.AllocNum(cs, s.CommRLast)
	commC := gadget.AllocNum(cs, s.CommC)
	commR := gadget.AllocNum(cs, s.CommR)
	commR.Inputize(cs)
	h, err := gadget.PoseidonHashCircuit(cs, poseidon2, []gadget.AllocatedNum{commC, commRLast})
	if err != nil {
		return err
	}
	gadget.Equal(cs, commR, h)
	for j := range s.Leaves {
		por := gadget.PoR{
			Shape:     c.treeShape(),
			Leaf:      gadget.RootVal(s.Leaves[j].Value),
			LeafIndex: s.Leaves[j].Path.Index,
			Path:      s.Leaves[j].Path.Siblings,
			Root:      gadget.RootVar(commRLast),
			Private:   true,
		}
		if err := por.Synthesize(cs); err != nil {
			return fmt.Errorf("leaf %d: %w", j, err)
		}
	}
	return nil
}

// check verifies the circuit's values have the configuration's shape.
func (c *Circuit) check() error {
	arities, err := c.arities()
	if err != nil {
		return err
	}
	if err := c.Validate(); err != nil {
		return err
	}
	if len(c.Sectors) != c.SectorCount {
		return fmt.Errorf("%w: %d sectors, the circuit has %d", ErrConfig, len(c.Sectors), c.SectorCount)
	}
	for i := range c.Sectors {
		if err := c.checkSector(i, len(arities)); err != nil {
			return err
		}
	}
	return nil
}

// checkSector checks sector i's challenge count and path lengths (levels per path).
func (c *Circuit) checkSector(i, levels int) error {
	s := &c.Sectors[i]
	if len(s.Leaves) != c.ChallengeCount {
		return fmt.Errorf("%w: sector %d has %d leaves, want %d", ErrConfig, i, len(s.Leaves), c.ChallengeCount)
	}
	for j := range s.Leaves {
		if len(s.Leaves[j].Path.Siblings) != levels {
			return fmt.Errorf("%w: sector %d leaf %d: path has %d levels, want %d", ErrConfig, i, j, len(s.Leaves[j].Path.Siblings), levels)
		}
	}
	return nil
}

// Blank returns the circuit of cfg with every value zero (upstream blank_circuit).
func Blank(cfg Config) (*Circuit, error) {
	arities, err := cfg.arities()
	if err != nil {
		return nil, err
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	c := &Circuit{Config: cfg, Sectors: make([]Sector, cfg.SectorCount)}
	for i := range c.Sectors {
		leaves := make([]Leaf, cfg.ChallengeCount)
		for j := range leaves {
			leaves[j].Path.Siblings = make([][]fr.Element, len(arities))
			for l, a := range arities {
				leaves[j].Path.Siblings[l] = make([]fr.Element, a-1)
			}
		}
		c.Sectors[i].Leaves = leaves
	}
	return c, nil
}

var poseidon2 = func() *gadget.PoseidonConstants {
	c, err := gadget.PoseidonFor(2)
	if err != nil {
		panic(err)
	}
	return c
}()
