// Package kit is the integration-test harness: it builds the snarkpipe binary, starts it
// on loopback ports with dev parameters for 2 KiB sectors from the shared test cache
// (prover/srs/srstest), tears it down (SIGTERM, then SIGKILL) and keeps its logs, and it
// provides reference-sealed 2 KiB sectors, a verifier for the proofs that come back
// (dev verifying keys, public inputs derived from the Filecoin data), and a simulated
// lotus-miner that drives `snarkpipe worker run` over the real lotus-worker protocol.
//
// Gates: Expensive skips a test under -short (CI's fast run); NeedsGPU skips it without
// the CUDA library and a GPU.
package kit
