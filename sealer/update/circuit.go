package update

import (
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/snarkpipe/snarkpipe/prover"
	"github.com/snarkpipe/snarkpipe/prover/r1cs"
	"github.com/snarkpipe/snarkpipe/sealer/gadget"
)

// ChallengeProof is one challenge's witness: the old replica, new data and new replica
// leaves, the tree R old / new paths (siblings per level, bottom up) and the tree D path
// from the data leaf up to its apex leaf (one sibling per level).
type ChallengeProof struct {
	LeafROld, LeafDNew, LeafRNew fr.Element
	PathROld, PathRNew           [][]fr.Element
	PathDToApex                  []fr.Element
}

// Circuit is one partition of an EmptySectorUpdate proof (upstream
// EmptySectorUpdateCircuit). PartitionPath holds the tree D siblings from the partition's
// apex root up to comm_d_new (upstream takes them from the first challenge's path).
type Circuit struct {
	Config
	Public                    PublicInputs
	CommC, RootROld, RootRNew fr.Element
	ApexLeaves                []fr.Element
	PartitionPath             []fr.Element
	Challenges                []ChallengeProof
}

var _ prover.Circuit = (*Circuit)(nil)

// ID names the R1CS.
func (c *Circuit) ID() prover.CircuitID { return c.Config.ID }

// prefix holds what every challenge reuses from the partition-wide part of the circuit.
type prefix struct {
	partitionBits, hSelectBits []gadget.AllocatedBit
	phi, rootROld, rootRNew    gadget.AllocatedNum
	apexLeaves                 []gadget.AllocatedNum
	generated                  [][]gadget.AllocatedBit
}

// Synthesize emits the circuit in upstream's order (circuit.rs synthesize): the packed
// k_and_h_select input and its bits, the partition number, the three public commitments,
// phi, the private roots and apex leaves, the comm_r checks, the apex PoR, the challenge
// bits, then each challenge.
func (c *Circuit) Synthesize(cs r1cs.ConstraintSystem) error {
	if err := c.check(); err != nil {
		return err
	}
	pre, err := c.synthesizePrefix(cs)
	if err != nil {
		return err
	}
	for i := range c.Challenges {
		if err := c.synthesizeChallenge(cs, pre, i); err != nil {
			return fmt.Errorf("update: challenge %d: %w", i, err)
		}
	}
	return nil
}

func (c *Circuit) synthesizePrefix(cs r1cs.ConstraintSystem) (*prefix, error) {
	kh, err := c.KAndHSelect(c.Public.K, c.Public.H)
	if err != nil {
		return nil, err
	}
	var khFr fr.Element
	khFr.SetUint64(kh)
	khNum := gadget.AllocNum(cs, khFr)
	khNum.Inputize(cs)
	khBits := make([]gadget.AllocatedBit, c.PartitionBits()+len(c.Hs()))
	for i := range khBits {
		khBits[i] = gadget.AllocBit(cs, kh>>i&1 == 1)
	}
	enforcePacked(cs, khBits, khNum)
	pre := &prefix{partitionBits: khBits[:c.PartitionBits()], hSelectBits: khBits[c.PartitionBits():]}
	partition := gadget.PackBits(cs, booleans(pre.partitionBits))

	commROld := gadget.AllocNum(cs, c.Public.CommROld)
	commROld.Inputize(cs)
	commDNew := gadget.AllocNum(cs, c.Public.CommDNew)
	commDNew.Inputize(cs)
	commRNew := gadget.AllocNum(cs, c.Public.CommRNew)
	commRNew.Inputize(cs)
	if pre.phi, err = gadget.PoseidonHashCircuit(cs, genRandomness, []gadget.AllocatedNum{commDNew, commROld}); err != nil {
		return nil, err
	}

	commC := gadget.AllocNum(cs, c.CommC)
	pre.rootROld = gadget.AllocNum(cs, c.RootROld)
	pre.rootRNew = gadget.AllocNum(cs, c.RootRNew)
	pre.apexLeaves = allocNums(cs, c.ApexLeaves)
	partitionPath := make([][]gadget.AllocatedNum, len(c.PartitionPath))
	for i := range c.PartitionPath {
		partitionPath[i] = []gadget.AllocatedNum{gadget.AllocNum(cs, c.PartitionPath[i])}
	}

	for _, pair := range [][2]gadget.AllocatedNum{{pre.rootROld, commROld}, {pre.rootRNew, commRNew}} {
		calc, err := gadget.PoseidonHashCircuit(cs, poseidon2, []gadget.AllocatedNum{commC, pair[0]})
		if err != nil {
			return nil, err
		}
		gadget.Equal(cs, calc, pair[1])
	}
	if err := apexPoR(cs, pre.apexLeaves, pre.partitionBits, partitionPath, commDNew); err != nil {
		return nil, fmt.Errorf("update: apex: %w", err)
	}
	pre.generated, err = c.genChallengeBits(cs, commRNew, partition)
	return pre, err
}

// apexPoR hashes the apex leaves up to the partition's apex root (SHA-256 nodes, row by
// row) and proves that root under comm_d_new along the partition path (gadgets.rs apex_por).
func apexPoR(cs r1cs.ConstraintSystem, leaves []gadget.AllocatedNum, partitionBits []gadget.AllocatedBit, path [][]gadget.AllocatedNum, commD gadget.AllocatedNum) error {
	row := leaves
	for len(row) > 1 {
		next := make([]gadget.AllocatedNum, len(row)/2)
		for i := range next {
			n, err := gadget.Sha256NodeCircuit(cs, row[2*i], row[2*i+1])
			if err != nil {
				return err
			}
			next[i] = n
		}
		row = next
	}
	return porNoChallengeInput(cs, treeDShape, partitionBits, row[0], path, commD)
}

// porNoChallengeInput is gadget.PoRNoChallengeInput that also accepts an empty path
// (a single partition): upstream then emits only the root equality row.
func porNoChallengeInput(cs r1cs.ConstraintSystem, shape gadget.TreeShape, bits []gadget.AllocatedBit, leaf gadget.AllocatedNum, path [][]gadget.AllocatedNum, root gadget.AllocatedNum) error {
	if len(path) == 0 {
		gadget.Equal(cs, leaf, root)
		return nil
	}
	return gadget.PoRNoChallengeInput(cs, shape, bits, leaf, path, root)
}

// genChallengeBits derives every challenge's random bits in circuit (gadgets.rs
// gen_challenge_bits): per digest j, aux digest_index with row
// digests·partition + j·ONE | ONE | digest_index, the Poseidon digest H_gen(comm_r_new,
// digest_index), and its 255 bits; challenges take RandomBits-bit chunks.
func (c *Circuit) genChallengeBits(cs r1cs.ConstraintSystem, commRNew, partition gadget.AllocatedNum) ([][]gadget.AllocatedBit, error) {
	digests, rb, per := c.DigestsPerPartition(), c.RandomBits(), c.ChallengesPerDigest()
	var nDigests, jFr fr.Element
	nDigests.SetUint64(uint64(digests))
	out := make([][]gadget.AllocatedBit, 0, c.ChallengeCount())
	for j := range digests {
		jFr.SetUint64(uint64(j))
		var v fr.Element
		v.Mul(&partition.Value, &nDigests).Add(&v, &jFr)
		idx := gadget.AllocNum(cs, v)
		if wantsRows(cs) {
			var a, b, cc r1cs.LC
			a.AddTerm(partition.Var, &nDigests)
			a.AddTerm(r1cs.One, &jFr)
			b.Add(r1cs.One)
			cc.Add(idx.Var)
			cs.Enforce("digest_index", &a, &b, &cc)
		}
		d, err := gadget.PoseidonHashCircuit(cs, genRandomness, []gadget.AllocatedNum{commRNew, idx})
		if err != nil {
			return nil, err
		}
		dBits := allocNumBits(cs, d)
		for i := 0; i < per && len(out) < c.ChallengeCount(); i++ {
			out = append(out, dBits[i*rb:(i+1)*rb])
		}
	}
	return out, nil
}

// synthesizeChallenge emits challenge i: c_high and rho, the old/new data leaves, the new
// replica leaf, the tree R old and new inclusions, the apex-leaf selection and the tree D
// inclusion up to it.
func (c *Circuit) synthesizeChallenge(cs r1cs.ConstraintSystem, pre *prefix, i int) error {
	ch := &c.Challenges[i]
	cBits := make([]gadget.AllocatedBit, 0, c.ChallengeBits())
	cBits = append(append(cBits, pre.generated[i]...), pre.partitionBits...)
	high := c.challengeHigh(cs, cBits, pre.hSelectBits)
	rho, err := gadget.PoseidonHashCircuit(cs, genRandomness, []gadget.AllocatedNum{pre.phi, high})
	if err != nil {
		return err
	}
	leafROld := gadget.AllocNum(cs, ch.LeafROld)
	leafDNew := gadget.AllocNum(cs, ch.LeafDNew)
	dRho := gadget.Mul(cs, leafDNew, rho)
	leafRNew := gadget.Add(cs, leafROld, dRho)

	for _, tree := range []struct {
		leaf gadget.AllocatedNum
		path [][]fr.Element
		root gadget.AllocatedNum
	}{{leafROld, ch.PathROld, pre.rootROld}, {leafRNew, ch.PathRNew, pre.rootRNew}} {
		path := make([][]gadget.AllocatedNum, len(tree.path))
		for l := range tree.path {
			path[l] = allocNums(cs, tree.path[l])
		}
		if err := gadget.PoRNoChallengeInput(cs, c.treeShape(), cBits, tree.leaf, path, tree.root); err != nil {
			return err
		}
	}

	toApex := c.pathToApex()
	apexLeaf, err := gadget.Select(cs, pre.apexLeaves, booleans(cBits[toApex:toApex+c.ApexBits()]))
	if err != nil {
		return err
	}
	pathD := make([][]gadget.AllocatedNum, toApex)
	for l := range pathD {
		pathD[l] = []gadget.AllocatedNum{gadget.AllocNum(cs, ch.PathDToApex[l])}
	}
	return gadget.PoRNoChallengeInput(cs, treeDShape, cBits[:toApex], leafDNew, pathD, apexLeaf)
}

// challengeHigh is gadgets.rs get_challenge_high_bits: for each h in hs, pack the h high
// challenge bits, aux c_high·h_select_bit (row c_high | bit | product); then aux the sum
// with row Σ products | ONE | sum.
func (c *Circuit) challengeHigh(cs r1cs.ConstraintSystem, cBits, hSelect []gadget.AllocatedBit) gadget.AllocatedNum {
	hs := c.Hs()
	all := booleans(cBits)
	products := make([]gadget.AllocatedNum, len(hs))
	var sum fr.Element
	for k, h := range hs {
		packed := gadget.PackBits(cs, all[len(all)-h:])
		var v fr.Element
		if hSelect[k].Value {
			v = packed.Value
		}
		products[k] = gadget.AllocNum(cs, v)
		sum.Add(&sum, &v)
		if wantsRows(cs) {
			var a, b, cc r1cs.LC
			a.Add(packed.Var)
			b.Add(hSelect[k].Var)
			cc.Add(products[k].Var)
			cs.Enforce("c_high_or_zero", &a, &b, &cc)
		}
	}
	selected := gadget.AllocNum(cs, sum)
	if wantsRows(cs) {
		var a, b, cc r1cs.LC
		for _, p := range products {
			a.Add(p.Var)
		}
		b.Add(r1cs.One)
		cc.Add(selected.Var)
		cs.Enforce("c_high_selected", &a, &b, &cc)
	}
	return selected
}

// allocNumBits is gadgets.rs allocated_num_to_allocated_bits: 255 AllocatedBits of n, LSB
// first, then the row Σ 2^i·b_i | ONE | n.
func allocNumBits(cs r1cs.ConstraintSystem, n gadget.AllocatedNum) []gadget.AllocatedBit {
	values := gadget.FrBitsLE(&n.Value)
	out := make([]gadget.AllocatedBit, gadget.NumBits)
	for i := range out {
		out[i] = gadget.AllocBit(cs, values[i])
	}
	enforcePacked(cs, out, n)
	return out
}

// enforcePacked emits Σ 2^i·bits[i] | ONE | n.
func enforcePacked(cs r1cs.ConstraintSystem, bits []gadget.AllocatedBit, n gadget.AllocatedNum) {
	if !wantsRows(cs) {
		return
	}
	var a, b, cc r1cs.LC
	var pow fr.Element
	pow.SetOne()
	for _, bit := range bits {
		a.AddTerm(bit.Var, &pow)
		pow.Double(&pow)
	}
	b.Add(r1cs.One)
	cc.Add(n.Var)
	cs.Enforce("binary decomposition", &a, &b, &cc)
}

// wantsRows reports whether cs needs rows (it is not a values-only witness filler).
func wantsRows(cs r1cs.ConstraintSystem) bool {
	v, ok := cs.(gadget.ValuesOnlySystem)
	return !ok || !v.ValuesOnly()
}

func booleans(bits []gadget.AllocatedBit) []gadget.Boolean {
	out := make([]gadget.Boolean, len(bits))
	for i := range bits {
		out[i] = bits[i].Is()
	}
	return out
}

func allocNums(cs r1cs.ConstraintSystem, values []fr.Element) []gadget.AllocatedNum {
	out := make([]gadget.AllocatedNum, len(values))
	for i := range values {
		out[i] = gadget.AllocNum(cs, values[i])
	}
	return out
}

// check verifies that the circuit's values have the configuration's shape and that the
// public k and h are allowed.
func (c *Circuit) check() error {
	if err := c.Validate(); err != nil {
		return err
	}
	if _, err := c.KAndHSelect(c.Public.K, c.Public.H); err != nil {
		return err
	}
	arities, _ := c.rArities()
	switch {
	case len(c.ApexLeaves) != c.ApexLeafCount():
		return fmt.Errorf("%w: %d apex leaves, want %d", ErrConfig, len(c.ApexLeaves), c.ApexLeafCount())
	case len(c.PartitionPath) != c.PartitionBits():
		return fmt.Errorf("%w: partition path of %d levels, want %d", ErrConfig, len(c.PartitionPath), c.PartitionBits())
	case len(c.Challenges) != c.ChallengeCount():
		return fmt.Errorf("%w: %d challenges, want %d", ErrConfig, len(c.Challenges), c.ChallengeCount())
	}
	for i := range c.Challenges {
		ch := &c.Challenges[i]
		if len(ch.PathDToApex) != c.pathToApex() {
			return fmt.Errorf("%w: challenge %d: tree D path of %d levels, want %d", ErrConfig, i, len(ch.PathDToApex), c.pathToApex())
		}
		for _, p := range [][][]fr.Element{ch.PathROld, ch.PathRNew} {
			if len(p) != len(arities) {
				return fmt.Errorf("%w: challenge %d: tree R path of %d levels, want %d", ErrConfig, i, len(p), len(arities))
			}
			for l, a := range arities {
				if len(p[l]) != a-1 {
					return fmt.Errorf("%w: challenge %d: tree R level %d has %d siblings, want %d", ErrConfig, i, l, len(p[l]), a-1)
				}
			}
		}
	}
	return nil
}

// Blank returns the circuit of cfg with every value zero, k = 0 and h = hs[3] (upstream
// blank circuit; the R1CS does not depend on the values).
func Blank(cfg Config) (*Circuit, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	arities, _ := cfg.rArities()
	c := &Circuit{
		Config:        cfg,
		Public:        PublicInputs{H: cfg.Hs()[3]},
		ApexLeaves:    make([]fr.Element, cfg.ApexLeafCount()),
		PartitionPath: make([]fr.Element, cfg.PartitionBits()),
		Challenges:    make([]ChallengeProof, cfg.ChallengeCount()),
	}
	for i := range c.Challenges {
		ch := &c.Challenges[i]
		ch.PathDToApex = make([]fr.Element, cfg.pathToApex())
		ch.PathROld = make([][]fr.Element, len(arities))
		ch.PathRNew = make([][]fr.Element, len(arities))
		for l, a := range arities {
			ch.PathROld[l] = make([]fr.Element, a-1)
			ch.PathRNew[l] = make([]fr.Element, a-1)
		}
	}
	return c, nil
}
