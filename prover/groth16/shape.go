package groth16

import (
	"errors"
	"fmt"
	"math/bits"
	"strings"

	"github.com/snarkpipe/snarkpipe/prover/r1cs"
)

// ShapeCounts is what a circuit's R1CS says a parameter file must contain (spec
// groth16-gpu.md §1.2, circuits.md §1): Inputs counts ONE; DomainSize is the FFT domain,
// the next power of two of constraints + inputs; AAux is the number of aux variables that
// occur in A; BInput and BAux the inputs and aux variables that occur in B.
type ShapeCounts struct {
	Inputs, Aux, DomainSize, AAux, BInput, BAux int
}

// ErrShape reports parameters that do not belong to the circuit they are used with.
var ErrShape = errors.New("groth16: parameters do not match the circuit shape")

// CheckShape compares the vector lengths with what the circuit needs: the densities
// computed from our own R1CS must select exactly the points the setup kept, otherwise the
// prover would pair scalars with the wrong bases. All mismatches are listed.
func (p *Params) CheckShape(s ShapeCounts) error {
	var bad []string
	want := func(name string, got, want int, rule string) {
		if got != want {
			bad = append(bad, fmt.Sprintf("%s has %d points, want %d (%s)", name, got, want, rule))
		}
	}
	if s.DomainSize < 1 || bits.OnesCount(uint(s.DomainSize)) != 1 {
		bad = append(bad, fmt.Sprintf("domain size %d is not a power of two", s.DomainSize))
	}
	want("ic", len(p.VK.IC), s.Inputs, "inputs")
	want("h", len(p.H), s.DomainSize-1, "domain size - 1")
	want("l", len(p.L), s.Aux, "aux")
	want("a", len(p.A), s.Inputs+s.AAux, "inputs + aux in A")
	want("b_g1", len(p.BG1), s.BInput+s.BAux, "inputs in B + aux in B")
	want("b_g2", len(p.BG2), s.BInput+s.BAux, "inputs in B + aux in B")
	if len(bad) > 0 {
		return fmt.Errorf("%w: %s", ErrShape, strings.Join(bad, "; "))
	}
	return nil
}

// ShapeCountsOf derives the parameter-file shape from a circuit's counts.
func ShapeCountsOf(c r1cs.Counts) ShapeCounts {
	return ShapeCounts{
		Inputs: c.NumInputs, Aux: c.NumAux, DomainSize: c.DomainSize(),
		AAux: c.AAux, BInput: c.BInput, BAux: c.BAux,
	}
}

// ParamsFileSize is the exact size in bytes of the bellperson .params file of this shape
// (with the dev trailer if dev). Decoded in memory the points take the same room: gnark's
// affine points are 96 and 192 bytes too.
func (s ShapeCounts) ParamsFileSize(dev bool) int64 {
	g1 := int64(s.Inputs) + int64(s.DomainSize-1) + int64(s.Aux) + int64(s.Inputs+s.AAux) + int64(s.BInput+s.BAux)
	size := vkFixedSize + 6*countSize + g1RawSize*g1 + g2RawSize*int64(s.BInput+s.BAux)
	if dev {
		size += int64(devTrailerSize)
	}
	return size
}
