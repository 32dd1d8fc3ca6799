package porep

import (
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// check verifies that the circuit's values have the configuration's shape, so that a
// malformed circuit is an error before synthesis rather than a different R1CS. Path
// sibling counts are checked again by the PoR gadget.
func (c *Circuit) check() error {
	if err := c.Validate(); err != nil {
		return err
	}
	if len(c.Challenges) != c.Config.Challenges {
		return fmt.Errorf("%w: %d challenges, the circuit has %d", ErrConfig, len(c.Challenges), c.Config.Challenges)
	}
	rLevels, _ := c.baseLevels()
	rDepth := len(c.treeShape().Levels(rLevels))
	for i := range c.Challenges {
		ch := &c.Challenges[i]
		if ch.Node >= c.Nodes {
			return fmt.Errorf("%w: challenge %d: node %d beyond %d nodes", ErrConfig, i, ch.Node, c.Nodes)
		}
		if len(ch.CommDPath.Siblings) != c.treeDDepth() {
			return fmt.Errorf("%w: challenge %d: comm_d path has %d levels, want %d", ErrConfig, i, len(ch.CommDPath.Siblings), c.treeDDepth())
		}
		for _, p := range []Path{ch.CommRLastPath, ch.CommCPath} {
			if len(p.Siblings) != rDepth {
				return fmt.Errorf("%w: challenge %d: tree R/C path has %d levels, want %d", ErrConfig, i, len(p.Siblings), rDepth)
			}
		}
		for j, col := range append(ch.DrgParents[:], ch.ExpParents[:]...) {
			if len(col.Rows) != c.Layers {
				return fmt.Errorf("%w: challenge %d: parent column %d has %d rows, want %d", ErrConfig, i, j, len(col.Rows), c.Layers)
			}
			if len(col.Path.Siblings) != rDepth {
				return fmt.Errorf("%w: challenge %d: parent column %d path has %d levels, want %d", ErrConfig, i, j, len(col.Path.Siblings), rDepth)
			}
		}
	}
	return nil
}

// Blank returns the circuit of cfg with every value zero and every index 0: the shape
// upstream's blank_circuit synthesizes (the R1CS does not depend on values).
func Blank(cfg Config) (*Circuit, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	rLevels, _ := cfg.baseLevels()
	rArities := cfg.treeShape().Levels(rLevels)
	dArities := treeDShape().Levels(cfg.treeDDepth())
	c := &Circuit{Config: cfg, Challenges: make([]Challenge, cfg.Challenges)}
	for i := range c.Challenges {
		ch := &c.Challenges[i]
		ch.CommDPath = blankPath(dArities)
		ch.CommRLastPath = blankPath(rArities)
		ch.CommCPath = blankPath(rArities)
		for j := range ch.DrgParents {
			ch.DrgParents[j] = Column{Rows: make([]fr.Element, cfg.Layers), Path: blankPath(rArities)}
		}
		for j := range ch.ExpParents {
			ch.ExpParents[j] = Column{Rows: make([]fr.Element, cfg.Layers), Path: blankPath(rArities)}
		}
	}
	return c, nil
}

func blankPath(arities []int) Path {
	p := Path{Siblings: make([][]fr.Element, len(arities))}
	for i, a := range arities {
		p.Siblings[i] = make([]fr.Element, a-1)
	}
	return p
}
