module github.com/snarkpipe/snarkpipe/prover/groth16/anchor

go 1.26.8

replace github.com/snarkpipe/snarkpipe => ../../..

require (
	github.com/consensys/gnark v0.16.1
	github.com/consensys/gnark-crypto v0.22.0
	github.com/snarkpipe/snarkpipe v0.0.0
)

require (
	github.com/bits-and-blooms/bitset v1.25.0 // indirect
	github.com/blang/semver/v4 v4.0.0 // indirect
	github.com/fxamacker/cbor/v2 v2.9.2 // indirect
	github.com/google/pprof v0.0.0-20260802141513-ef3492d7dac3 // indirect
	github.com/mattn/go-colorable v0.1.15 // indirect
	github.com/mattn/go-isatty v0.0.24 // indirect
	github.com/ronanh/intcomp v1.1.1 // indirect
	github.com/rs/zerolog v1.35.1 // indirect
	github.com/x448/float16 v0.8.4 // indirect
	golang.org/x/crypto v0.57.0 // indirect
	golang.org/x/sync v0.23.0 // indirect
	golang.org/x/sys v0.50.0 // indirect
)
