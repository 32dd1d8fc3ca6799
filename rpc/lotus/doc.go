// Package lotus makes snarkpipe a lotus-worker: lotus-miner delegates SealCommit2,
// SnapDeals' ProveReplicaUpdate2 and Window/Winning PoSt to it over go-jsonrpc (namespace
// "Filecoin"), exactly as it does to lotus-worker processes.
//
// Each role (c2, wdpost, winpost) is its own registration with the miner: its own URL
// (/<role>/rpc/v0), its own Session UUID persisted in the state directory and its own task
// type, because lotus-miner gives a worker that advertises a PoSt task type only to the PoSt
// schedulers (spec/integration.md §2.5).
//
// The c2 role also takes ProveReplicaUpdate2 (both go through the miner's sealing
// scheduler), advertised only while an update proof type is servable.
//
// SealCommit2 and ProveReplicaUpdate2 are asynchronous: they answer a CallID at once and
// report the proof later through the miner's ReturnSealCommit2 / ReturnProveReplicaUpdate2,
// retried until accepted. Calls are tracked on disk; after a crash, unfinished calls are
// reported with ErrTempWorkerRestart (101) and finished but unreported ones are re-sent
// (each through the Return method of its call). PoSt calls are synchronous; their vanilla
// proofs are fetched from the miner's storage (StorageFindSector + POST
// <BaseURL>/vanilla/single), and sectors that cannot be read are reported as Skipped.
package lotus
