package r1cs

import "fmt"

// Variable names one wire: an input (index 0 is ONE) or an aux variable. The top bit
// tells the two index spaces apart; an index needs at most 31 bits.
type Variable uint32

const auxFlag Variable = 1 << 31

// MaxVariables is the largest number of inputs or of aux variables a system may have.
const MaxVariables = int(auxFlag)

// One is the constant-one input, allocated before synthesis.
const One Variable = 0

// Input returns the variable of input i.
func Input(i int) Variable { return Variable(i) }

// Aux returns the variable of aux index i.
func Aux(i int) Variable { return Variable(i) | auxFlag }

// IsAux reports whether v is an aux variable.
func (v Variable) IsAux() bool { return v&auxFlag != 0 }

// Index is v's position in its own index space.
func (v Variable) Index() int { return int(v &^ auxFlag) }

// Column is v's position in the full assignment z = inputs ‖ aux.
func (v Variable) Column(numInputs int) int {
	if v.IsAux() {
		return numInputs + v.Index()
	}
	return v.Index()
}

func (v Variable) String() string {
	if v.IsAux() {
		return fmt.Sprintf("aux%d", v.Index())
	}
	return fmt.Sprintf("in%d", v.Index())
}
