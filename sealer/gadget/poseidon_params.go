package gadget

import (
	"math"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// Poseidon instance parameters, as neptune v11 derives them for the BLS12-381 scalar field
// (spec circuits.md §5.1). Everything here is computed from the algorithm, never tabulated.

const (
	// poseidonPrimeBits is the n of neptune's round-number search. neptune uses 256 (not
	// Fr's 255 bits) "for simplicity"; it changes the results, so we keep it.
	poseidonPrimeBits = 256
	// poseidonSecurityBits is the M of the Poseidon paper.
	poseidonSecurityBits = 128
	// poseidonFieldBits is Fr's NUM_BITS: the Grain field_size and the bits per constant.
	poseidonFieldBits = 255
)

// poseidonRoundNumbers returns (RF, RP) for width t at Standard strength: neptune's
// calc_round_numbers(t, security_margin = true).
//
// Two upstream quirks are reproduced on purpose because they decide the result:
//   - the inequalities are evaluated in float32 (Rust f32);
//   - the margin step bumps the *outer* loop variable rf by 2 and keeps it bumped for
//     the rest of that inner loop, while rp is bumped only for the current iteration.
func poseidonRoundNumbers(t int) (rf, rp int) {
	bestCost := math.MaxInt
	for rfOuter := 2; rfOuter <= 1000; rfOuter += 2 {
		rfTest := rfOuter
		for rpLoop := 4; rpLoop < 200; rpLoop++ {
			rpTest := rpLoop
			if !poseidonRoundsSecure(t, rfTest, rpTest) {
				continue
			}
			rfTest += 2
			rpTest = int(float32(math.Ceil(float64(float32(1.075) * float32(rpTest)))))
			cost := t*rfTest + rpTest
			if cost < bestCost || (cost == bestCost && rfTest < rf) {
				rf, rp, bestCost = rfTest, rpTest, cost
			}
		}
	}
	return rf, rp
}

// poseidonRoundsSecure is neptune's round_numbers_are_secure: rf must reach the largest of
// the statistical, interpolation and two Gröbner-basis bounds, all computed in float32.
func poseidonRoundsSecure(t, rf, rp int) bool {
	rpF, tF := float32(rp), float32(t)
	n, m := float32(poseidonPrimeBits), float32(poseidonSecurityBits)
	rfStat := float32(10)
	if m <= (n-3)*(tF+1) {
		rfStat = 6
	}
	rfInterp := float32(0.43)*m + float32(math.Log2(float64(tF))) - rpF
	rfGrob1 := float32(0.21)*n - rpF
	rfGrob2 := (float32(0.14)*n - 1 - rpF) / (tF - 1)
	need := 0
	for _, bound := range [...]float32{rfStat, rfInterp, rfGrob1, rfGrob2} {
		// Rust's `f32::ceil() as usize` saturates negative values to 0.
		c := int(math.Max(0, math.Ceil(float64(bound))))
		need = max(need, c)
	}
	return rf >= need
}

// grain is the Grain LFSR of the Poseidon reference script in self-shrinking mode.
// The 80-bit state is a ring buffer: state[(head+i)%80] is b_i.
type grain struct {
	state [80]bool
	head  int
}

// newGrain seeds the LFSR with the instance description (each field MSB first) and
// discards the first 160 bits.
func newGrain(t, rf, rp int) *grain {
	g := &grain{}
	pos := 0
	put := func(width int, v uint64) {
		for i := width - 1; i >= 0; i-- {
			g.state[pos] = v>>uint(i)&1 == 1
			pos++
		}
	}
	put(2, 1) // prime field
	put(4, 1) // S-box x^5
	put(12, poseidonFieldBits)
	put(12, uint64(t))
	put(10, uint64(rf))
	put(10, uint64(rp))
	put(30, 1<<30-1)
	for range 160 {
		g.step()
	}
	return g
}

// step produces b_80 = b_62 ⊕ b_51 ⊕ b_38 ⊕ b_23 ⊕ b_13 ⊕ b_0 and shifts it in.
func (g *grain) step() bool {
	bit := func(i int) bool { return g.state[(g.head+i)%80] }
	b := bit(62) != bit(51) != bit(38) != bit(23) != bit(13) != bit(0)
	g.state[g.head] = b // b_0 leaves, b_80 takes its slot
	g.head = (g.head + 1) % 80
	return b
}

// next is one self-shrinking output bit: draw pairs until the first bit of a pair is 1,
// then output the second bit of that pair.
func (g *grain) next() bool {
	for !g.step() {
		g.step()
	}
	return g.step()
}

// fieldElement draws 255 bits (first bit most significant), rejecting values ≥ p.
func (g *grain) fieldElement() fr.Element {
	for {
		var be [fr.Bytes]byte
		for i := range poseidonFieldBits {
			if g.next() {
				bitPos := poseidonFieldBits - 1 - i // from the least significant end
				be[fr.Bytes-1-bitPos/8] |= 1 << uint(bitPos%8)
			}
		}
		if e, err := fr.BigEndian.Element(&be); err == nil {
			return e
		}
	}
}

// poseidonRoundConstants returns the t·(RF+RP) Grain round constants of the instance.
func poseidonRoundConstants(t, rf, rp int) []fr.Element {
	g := newGrain(t, rf, rp)
	out := make([]fr.Element, t*(rf+rp))
	for i := range out {
		out[i] = g.fieldElement()
	}
	return out
}
