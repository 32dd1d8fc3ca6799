// Package remotec2 serves lotus's per-sector remote Commit2 hook. A sector imported with
// SectorReceive may name a RemoteCommit2Endpoint; lotus-miner then POSTs
// api.RemoteCommit2Params as JSON ({"Sector": {"Miner", "Number"}, "ProofType",
// "Commit1Out": base64 of the C1 output}) and expects HTTP 200 with the raw proof bytes
// as the body (lotus storage/pipeline/states_sealing.go). Any other status fails the
// sector's commit step with the status line; the body carries our message for the log.
//
// lotus sends no credentials of its own, so the token of the native API goes in the
// endpoint URL (…?token=<jwt>); an Authorization header works too. The token needs the
// "write" permission, as SealCommit2 does on the native API.
package remotec2
