package update

import (
	"errors"
	"fmt"
	"math/bits"

	"github.com/snarkpipe/snarkpipe/prover"
	"github.com/snarkpipe/snarkpipe/sealer/gadget"
	"github.com/snarkpipe/snarkpipe/types"
)

// ErrConfig reports a circuit configuration or circuit value of the wrong shape.
var ErrConfig = errors.New("update: invalid circuit")

// NumInputs is the number of public inputs, ONE included: ONE, k_and_h_select,
// comm_r_old, comm_d_new, comm_r_new.
const NumInputs = 5

// Config fixes the R1CS: the sector size (in 32-byte nodes) and tree R's shape. Every
// other parameter (partitions, challenges, hs, apex leaves) follows from the size as in
// upstream constants.rs.
type Config struct {
	ID    prover.CircuitID
	Nodes uint64
	Tree  types.TreeShape
}

// ConfigFor returns the circuit configuration of a registered update proof.
func ConfigFor(info *types.UpdateProofInfo) Config {
	return Config{ID: prover.CircuitID(info.CircuitID), Nodes: info.Nodes(), Tree: info.Tree}
}

// testShapes are the tree-R shapes upstream's tests pair with the small test sizes
// (constants.rs validate_tree_r_shape), keyed by node count.
var testShapes = map[uint64]types.TreeShape{
	1 << 5:  {Base: 8, Sub: 4},
	1 << 6:  {Base: 8},
	1 << 7:  {Base: 8, Sub: 2},
	1 << 8:  {Base: 8, Sub: 4},
	1 << 9:  {Base: 8, Sub: 8},
	1 << 10: {Base: 8, Sub: 8, Top: 2},
}

// TestConfig returns the configuration upstream's circuit tests use for a test sector
// size of 1, 2, 4, 8, 16 or 32 KiB.
func TestConfig(sectorSize uint64) (Config, error) {
	nodes := sectorSize / types.NodeSize
	tree, ok := testShapes[nodes]
	if !ok || nodes*types.NodeSize != sectorSize {
		return Config{}, fmt.Errorf("%w: no upstream test shape for %d bytes", ErrConfig, sectorSize)
	}
	return Config{ID: prover.CircuitID(fmt.Sprintf("snap-test-%dk", sectorSize>>10)), Nodes: nodes, Tree: tree}, nil
}

// ChallengeBits is log2(nodes): the bits of a challenge (tree D's height).
func (c Config) ChallengeBits() int { return bits.TrailingZeros64(c.Nodes) }

// Partitions is upstream partition_count.
func (c Config) Partitions() int { return types.UpdatePartitionCount(c.Nodes) }

// PartitionBits is log2(partitions).
func (c Config) PartitionBits() int { return bits.TrailingZeros(uint(c.Partitions())) }

// ChallengeCount is the number of challenges per partition.
func (c Config) ChallengeCount() int { return types.UpdateChallengeCount(c.Nodes) }

// ApexLeafCount is the number of apex leaves per partition.
func (c Config) ApexLeafCount() int { return types.UpdateApexLeafCount(c.Nodes) }

// ApexBits is log2(apex leaves): the apex tree's height.
func (c Config) ApexBits() int { return bits.TrailingZeros(uint(c.ApexLeafCount())) }

// Hs returns the allowed h values.
func (c Config) Hs() [types.UpdateHCount]int { return types.UpdateHs(c.Nodes) }

// RandomBits is the number of random bits each challenge takes from a digest: the
// challenge bits minus the partition bits, which are appended on the high end.
func (c Config) RandomBits() int { return c.ChallengeBits() - c.PartitionBits() }

// ChallengesPerDigest is how many challenges one 254-bit digest yields.
func (c Config) ChallengesPerDigest() int { return gadget.Capacity / c.RandomBits() }

// DigestsPerPartition is ceil(challenges / challenges per digest).
func (c Config) DigestsPerPartition() int {
	per := c.ChallengesPerDigest()
	return (c.ChallengeCount() + per - 1) / per
}

// pathToApex is the number of tree-D levels below the apex leaves.
func (c Config) pathToApex() int { return c.ChallengeBits() - c.PartitionBits() - c.ApexBits() }

func (c Config) treeShape() gadget.TreeShape {
	return gadget.TreeShape{Hasher: gadget.TreePoseidon, Base: c.Tree.Base, Sub: c.Tree.Sub, Top: c.Tree.Top}
}

var treeDShape = gadget.TreeShape{Hasher: gadget.TreeSha256, Base: 2}

// rArities returns the arity of every level of a tree-R path (base levels, sub, top).
func (c Config) rArities() ([]int, error) {
	if err := c.treeShape().Validate(); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrConfig, err)
	}
	b := c.ChallengeBits()
	for _, a := range []int{c.Tree.Sub, c.Tree.Top} {
		if a > 0 {
			b -= bits.TrailingZeros(uint(a))
		}
	}
	k := bits.TrailingZeros(uint(c.Tree.Base))
	if b <= 0 || b%k != 0 {
		return nil, fmt.Errorf("%w: %d nodes do not fill a %s tree", ErrConfig, c.Nodes, c.Tree)
	}
	return c.treeShape().Levels(b / k), nil
}

// Validate checks that the configuration describes a circuit upstream builds: a power-of-two
// node count of at least 1 KiB worth whose tree R shape fits, and random bits per challenge
// that fit a digest.
func (c Config) Validate() error {
	if c.Nodes < 1<<5 || c.Nodes > 1<<31 || c.Nodes&(c.Nodes-1) != 0 {
		return fmt.Errorf("%w: %d nodes", ErrConfig, c.Nodes)
	}
	if c.pathToApex() < 1 {
		return fmt.Errorf("%w: %d nodes leave no tree-D levels below the apex leaves", ErrConfig, c.Nodes)
	}
	_, err := c.rArities()
	return err
}
