package porep

import (
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/snarkpipe/snarkpipe/prover"
	"github.com/snarkpipe/snarkpipe/prover/r1cs"
	"github.com/snarkpipe/snarkpipe/sealer/gadget"
)

// Path is one Merkle inclusion path: the leaf index and, bottom up, the siblings of each
// level (the layout gadget.PoR takes).
type Path struct {
	Index    uint64
	Siblings [][]fr.Element
}

// Column is an opened column of tree C: the node's labels in layers 1..L and the path of
// its column hash.
type Column struct {
	Rows []fr.Element
	Path Path
}

// Challenge is everything one challenged node contributes to the circuit (upstream
// circuit::params::Proof).
type Challenge struct {
	Node          uint64 // the challenged node (labeling_proofs[0].node)
	DataLeaf      fr.Element
	CommDPath     Path // tree D, SHA-256
	CommRLastPath Path // tree R (replica node = label_L + data)
	CommCPath     Path // tree C (column hash of the challenged node)
	DrgParents    [6]Column
	ExpParents    [8]Column
}

// Circuit is one partition of a StackedDrg proof (upstream StackedCircuit).
type Circuit struct {
	Config
	ReplicaID, CommD, CommR, CommRLast, CommC fr.Element
	Challenges                                []Challenge
}

var _ prover.Circuit = (*Circuit)(nil)

// ID names the R1CS: one per sector size.
func (c *Circuit) ID() prover.CircuitID { return c.Config.ID }

// Synthesize emits the circuit in upstream's order (spec §7.5).
func (c *Circuit) Synthesize(cs r1cs.ConstraintSystem) error {
	if err := c.check(); err != nil {
		return err
	}
	h, err := c.synthesizeHeader(cs)
	if err != nil {
		return err
	}
	for i := range c.Challenges {
		if err := c.synthesizeChallenge(cs, &c.Challenges[i], h); err != nil {
			return fmt.Errorf("porep: challenge %d: %w", i, err)
		}
	}
	return nil
}

// header is what the challenges share: the allocated roots and replica_id's bits.
type header struct {
	commD, commC, commRLast gadget.AllocatedNum
	replicaIDBits           []gadget.Boolean
}

// synthesizeHeader allocates and inputizes replica_id (and decomposes it), comm_d and
// comm_r, allocates comm_r_last and comm_c and enforces comm_r = Poseidon2(comm_c,
// comm_r_last): 571 rows, 571 aux, 3 inputs.
func (c *Circuit) synthesizeHeader(cs r1cs.ConstraintSystem) (header, error) {
	replicaID := gadget.AllocNum(cs, c.ReplicaID)
	replicaID.Inputize(cs)
	h := header{replicaIDBits: gadget.ReverseBitNumbering(replicaID.ToBitsLE(cs))}
	h.commD = gadget.AllocNum(cs, c.CommD)
	h.commD.Inputize(cs)
	commR := gadget.AllocNum(cs, c.CommR)
	commR.Inputize(cs)
	h.commRLast = gadget.AllocNum(cs, c.CommRLast)
	h.commC = gadget.AllocNum(cs, c.CommC)
	hash, err := gadget.PoseidonHashCircuit(cs, poseidon2, []gadget.AllocatedNum{h.commC, h.commRLast})
	if err != nil {
		return header{}, err
	}
	gadget.Equal(cs, commR, hash)
	return h, nil
}

// synthesizeChallenge is upstream circuit::params::Proof::synthesize.
func (c *Circuit) synthesizeChallenge(cs r1cs.ConstraintSystem, ch *Challenge, hd header) error {
	dataLeaf := gadget.AllocNum(cs, ch.DataLeaf)
	if err := inclusion(cs, treeDShape(), ch.CommDPath, dataLeaf, hd.commD); err != nil {
		return fmt.Errorf("comm_d inclusion: %w", err)
	}
	drg, err := c.openColumns(cs, ch.DrgParents[:], hd.commC)
	if err != nil {
		return fmt.Errorf("drg parents: %w", err)
	}
	exp, err := c.openColumns(cs, ch.ExpParents[:], hd.commC)
	if err != nil {
		return fmt.Errorf("exp parents: %w", err)
	}
	node := gadget.AllocUInt64(cs, ch.Node)
	node.PackIntoInput(cs)
	labels := make([]gadget.AllocatedNum, c.Layers)
	for layer := 1; layer <= c.Layers; layer++ {
		if labels[layer-1], err = labelCircuit(cs, hd.replicaIDBits, drg, exp, layer, node); err != nil {
			return fmt.Errorf("label of layer %d: %w", layer, err)
		}
	}
	replica := gadget.Encode(cs, labels[c.Layers-1], dataLeaf)
	if err := inclusion(cs, c.treeShape(), ch.CommRLastPath, replica, hd.commRLast); err != nil {
		return fmt.Errorf("comm_r_last inclusion: %w", err)
	}
	colHash, err := columnHash(cs, labels)
	if err != nil {
		return err
	}
	if err := inclusion(cs, c.treeShape(), ch.CommCPath, colHash, hd.commC); err != nil {
		return fmt.Errorf("comm_c inclusion: %w", err)
	}
	return nil
}

// openColumns allocates each parent column (its L rows, no rows emitted), hashes it and
// proves the hash is in tree C, parent by parent.
func (c *Circuit) openColumns(cs r1cs.ConstraintSystem, cols []Column, commC gadget.AllocatedNum) ([][]gadget.AllocatedNum, error) {
	out := make([][]gadget.AllocatedNum, len(cols))
	for i := range cols {
		rows := make([]gadget.AllocatedNum, len(cols[i].Rows))
		for j, v := range cols[i].Rows {
			rows[j] = gadget.AllocNum(cs, v)
		}
		h, err := columnHash(cs, rows)
		if err != nil {
			return nil, err
		}
		if err := inclusion(cs, c.treeShape(), cols[i].Path, h, commC); err != nil {
			return nil, fmt.Errorf("column %d: %w", i, err)
		}
		out[i] = rows
	}
	return out, nil
}

// columnHash is hash_single_column: Poseidon of arity L over the column.
func columnHash(cs r1cs.ConstraintSystem, rows []gadget.AllocatedNum) (gadget.AllocatedNum, error) {
	pc, err := gadget.PoseidonFor(len(rows))
	if err != nil {
		return gadget.AllocatedNum{}, err
	}
	return gadget.PoseidonHashCircuit(cs, pc, rows)
}

// inclusion is enforce_inclusion: PoRCircuit with Root::Var leaf and root, private root.
func inclusion(cs r1cs.ConstraintSystem, shape gadget.TreeShape, p Path, leaf, root gadget.AllocatedNum) error {
	por := gadget.PoR{
		Shape:     shape,
		Leaf:      gadget.RootVar(leaf),
		LeafIndex: p.Index,
		Path:      p.Siblings,
		Root:      gadget.RootVar(root),
		Private:   true,
	}
	return por.Synthesize(cs)
}

var poseidon2 = mustPoseidon(2)

func mustPoseidon(arity int) *gadget.PoseidonConstants {
	c, err := gadget.PoseidonFor(arity)
	if err != nil {
		panic(err)
	}
	return c
}
