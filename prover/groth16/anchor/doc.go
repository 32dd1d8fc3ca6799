// Package anchor benchmarks snarkpipe's CPU Groth16 prover against gnark v0.16 on the
// same circuit in the same run. It is its own module so that gnark (an anchor, never a
// dependency of snarkpipe) stays out of the main build.
//
//	cd prover/groth16/anchor && go test -run Alternating -v -timeout 60m -args -anchor.rounds 3
package anchor
