//go:build !purego

package gadget

// vzeroupper clears the upper halves of the vector registers (AVX VZEROUPPER).
func vzeroupper()

// clearUpper ends a run of gnark-crypto's AVX-512 vector operations, which return with
// the upper register state dirty (no VZEROUPPER): the SSE moves of the Go code after them
// then pay for it. Measured on the 2-core development VM: the arity-2 circuit replay went
// from 31 to 35 µs per hash after the IFMA form of M, and back with this.
func clearUpper() {
	if hostCPU.avx512 {
		vzeroupper()
	}
}
