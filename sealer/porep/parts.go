package porep

import (
	"fmt"

	"github.com/snarkpipe/snarkpipe/prover"
	"github.com/snarkpipe/snarkpipe/prover/r1cs"
)

var _ prover.PartedCircuit = (*Circuit)(nil)

// Parts describes the circuit as its header (replica_id and the roots the challenges
// share) and one part per challenge (prover.PartedCircuit): every challenge allocates
// the same variables, counted on challenge 0, and its rows refer only to them, the
// header's and ONE.
func (c *Circuit) Parts() (r1cs.PartsLayout, error) {
	if err := c.check(); err != nil {
		return r1cs.PartsLayout{}, err
	}
	if len(c.Challenges) == 0 {
		return r1cs.PartsLayout{}, fmt.Errorf("%w: no challenges", ErrConfig)
	}
	cnt := r1cs.NewCounter() // holds ONE
	hd, err := c.synthesizeHeader(cnt)
	if err != nil {
		return r1cs.PartsLayout{}, err
	}
	head := cnt.Sizes()
	if err := c.synthesizeChallenge(cnt, &c.Challenges[0], hd); err != nil {
		return r1cs.PartsLayout{}, fmt.Errorf("porep: challenge 0: %w", err)
	}
	all := cnt.Sizes()
	return r1cs.PartsLayout{
		HeadInputs: head.NumInputs - 1, HeadAux: head.NumAux,
		N: len(c.Challenges), InputsPer: all.NumInputs - head.NumInputs, AuxPer: all.NumAux - head.NumAux,
	}, nil
}

// SynthesizeHead synthesizes the header (prover.PartedCircuit).
func (c *Circuit) SynthesizeHead(cs r1cs.ConstraintSystem) error {
	if err := c.check(); err != nil {
		return err
	}
	_, err := c.synthesizeHeader(cs)
	return err
}

// SynthesizePart synthesizes challenge i alone (prover.PartedCircuit). The header's
// variables it refers to come from a synthesis of the header into a counter, which
// numbers them as the whole synthesis does (571 rows, nothing stored).
func (c *Circuit) SynthesizePart(cs r1cs.ConstraintSystem, i int) error {
	if err := c.check(); err != nil {
		return err
	}
	if i < 0 || i >= len(c.Challenges) {
		return fmt.Errorf("%w: part %d of %d challenges", ErrConfig, i, len(c.Challenges))
	}
	hd, err := c.synthesizeHeader(r1cs.NewCounter())
	if err != nil {
		return err
	}
	if err := c.synthesizeChallenge(cs, &c.Challenges[i], hd); err != nil {
		return fmt.Errorf("porep: challenge %d: %w", i, err)
	}
	return nil
}
