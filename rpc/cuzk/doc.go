// Package cuzk serves the gRPC protocol Curio uses to hand its SNARKs to a proving daemon
// (service cuzk.v1.ProvingEngine, Curio's [Cuzk] Address setting), on top of the sealer
// Service. A storage provider points Curio at snarkpipe and changes nothing else.
//
// Payload conventions follow Curio (lib/ffi/cuzk_funcs.go) and the cuzk daemon: PoRep
// requests carry the lotus-bench Commit2In JSON wrapper around the C1 output, PoSt
// requests one bincode vanilla proof per sector and a 32-byte seed, SnapDeals requests one
// bincode PartitionProof per partition and the raw 32-byte comm_r_old, comm_r_new and
// comm_d_new; request_id is the caller's idempotency key and doubles as the job id. Curio calls Prove and uses
// GetStatus (Σ pending + in_progress) for back-pressure.
//
// Errors found before a job is admitted (malformed wrapper, unknown proof type, invalid
// vanilla proof, unsupported proof type) are gRPC status errors with a code from the
// service's error code; a job that fails after admission answers FAILED with its error
// message, as cuzk does. Every proof kind, SnapDeals included, is served by both Prove
// and the queued SubmitProof / AwaitProof / CancelProof, and counted in GetStatus under
// cuzk's queue names (porep-c2, window-post, winning-post, snap-update). A service at
// its max_jobs refuses a new request with codes.Unavailable and a message naming
// max_jobs (a client that respects GetStatus never sees it); every admitted job counts as
// in progress, none as pending, so Curio's sum is the number of jobs in flight.
//
// Curio's client sends no credentials, so the listener is the access control
// (config.go, listen.go): loopback TCP by default, at 127.0.0.1:9820 where Curio's
// documentation expects a cuzk daemon; an owner-only unix socket ("unix:///abs/path" or
// "unix:relative/path", the forms Curio's gRPC client dials); or a TCP address with an
// explicit allowlist of peers. A daemon configured with
//
//	[cuzk]
//	enabled = true
//
// serves a Curio node on the same machine whose configuration says
//
//	[Cuzk]
//	Address = "127.0.0.1:9820"
package cuzk
