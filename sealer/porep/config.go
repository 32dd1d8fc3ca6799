package porep

import (
	"errors"
	"fmt"
	"math/bits"

	"github.com/snarkpipe/snarkpipe/prover"
	"github.com/snarkpipe/snarkpipe/sealer/gadget"
	"github.com/snarkpipe/snarkpipe/types"
)

// ErrConfig reports a circuit configuration upstream cannot instantiate.
var ErrConfig = errors.New("porep: invalid circuit configuration")

// Config is what fixes the R1CS of a StackedCircuit: the graph size, the layers, the
// challenges of one partition and the shape of trees R and C (tree D is always binary
// SHA-256 over all nodes).
type Config struct {
	ID         prover.CircuitID
	Nodes      uint64
	Layers     int
	Challenges int
	Tree       types.TreeShape
}

// ConfigFor returns the circuit configuration of a registered seal proof. All seal proofs
// of one sector size share it.
func ConfigFor(info *types.SealProofInfo) Config {
	return Config{
		ID:         prover.CircuitID(info.CircuitID),
		Nodes:      info.Nodes(),
		Layers:     info.Layers,
		Challenges: info.ChallengesPerPartition,
		Tree:       info.Tree,
	}
}

// Validate checks that the configuration describes a circuit upstream builds.
func (c Config) Validate() error {
	if c.Nodes < 2 || c.Nodes&(c.Nodes-1) != 0 {
		return fmt.Errorf("%w: %d nodes is not a power of two ≥ 2", ErrConfig, c.Nodes)
	}
	if c.Layers != 2 && c.Layers != 11 {
		// hash_single_column only instantiates Poseidon arities 2 and 11.
		return fmt.Errorf("%w: %d layers (columns hash with arity 2 or 11 only)", ErrConfig, c.Layers)
	}
	if c.Challenges < 1 || c.Challenges > types.MaxChallengesPerPartition {
		return fmt.Errorf("%w: %d challenges per partition", ErrConfig, c.Challenges)
	}
	if err := c.treeShape().Validate(); err != nil {
		return fmt.Errorf("%w: %v", ErrConfig, err)
	}
	if _, err := c.baseLevels(); err != nil {
		return err
	}
	return nil
}

// treeShape is the gadget shape of trees R and C.
func (c Config) treeShape() gadget.TreeShape {
	return gadget.TreeShape{Hasher: gadget.TreePoseidon, Base: c.Tree.Base, Sub: c.Tree.Sub, Top: c.Tree.Top}
}

// treeDShape is the gadget shape of tree D.
func treeDShape() gadget.TreeShape {
	return gadget.TreeShape{Hasher: gadget.TreeSha256, Base: 2}
}

// baseLevels is the number of base levels of trees R and C: log_base(nodes / (sub·top)).
func (c Config) baseLevels() (int, error) {
	leaves := c.Nodes
	for _, a := range []int{c.Tree.Sub, c.Tree.Top} {
		if a > 0 {
			leaves /= uint64(a)
		}
	}
	k := bits.TrailingZeros(uint(c.Tree.Base))
	lb := bits.TrailingZeros64(leaves)
	if leaves == 0 || k == 0 || lb%k != 0 || lb == 0 {
		return 0, fmt.Errorf("%w: %d nodes do not fill a %s tree", ErrConfig, c.Nodes, c.Tree)
	}
	return lb / k, nil
}

// treeDDepth is the depth of tree D.
func (c Config) treeDDepth() int { return bits.TrailingZeros64(c.Nodes) }

// NumInputs is the number of public inputs, ONE included: 1 + 3 + 18·challenges.
func (c Config) NumInputs() int { return 1 + 3 + 18*c.Challenges }
