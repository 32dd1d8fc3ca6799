// Package srs locates, checks, loads and caches Groth16 parameter files (official and dev),
// fetches official ones from an IPFS gateway (Fetch), and keeps the residency bookkeeping
// of the proving service.
package srs
