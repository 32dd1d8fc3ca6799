package sealer

import (
	"time"

	"github.com/filecoin-project/go-state-types/abi"
	"github.com/filecoin-project/go-state-types/proof"
	"github.com/snarkpipe/snarkpipe/types/vanilla"
)

// This file is the Service API: the one entry point every adapter (native JSON-RPC,
// lotus-worker, Curio/cuzk) calls. Signatures here are stable: add, don't change.

// JobID names a submitted job; it is unique for the lifetime of a Service.
type JobID string

// JobKind is what a job proves. It selects the job's priority.
type JobKind string

// Job kinds.
const (
	JobSealCommit2 JobKind = "seal-commit2"
	JobWinningPoSt JobKind = "winning-post"
	JobWindowPoSt  JobKind = "window-post"
)

// JobState is where a job is.
type JobState string

// Job states. Done, Failed and Cancelled are final.
const (
	JobQueued    JobState = "queued"
	JobRunning   JobState = "running"
	JobDone      JobState = "done"
	JobFailed    JobState = "failed"
	JobCancelled JobState = "cancelled"
)

// Final reports whether the state is terminal.
func (s JobState) Final() bool { return s == JobDone || s == JobFailed || s == JobCancelled }

// SealCommit2Request asks for the Groth16 proof of a PoRep C1 output (SealCommit2).
type SealCommit2Request struct {
	// Sector is the sector the C1 output belongs to: its miner id gives prover_id and its
	// number enters replica_id, so both are checked against the C1 output.
	Sector abi.SectorID
	// ProofType is the registered seal proof the caller expects; it must equal the C1
	// output's registered_proof.
	ProofType abi.RegisteredSealProof
	// C1 is the C1 output exactly as filecoin-ffi produces it (serde JSON of
	// SealCommitPhase1Output).
	C1 []byte
	// Key, when not empty, makes submission idempotent: a job with the same key in flight
	// or recently succeeded is returned instead of starting another.
	Key string
}

// SealCommit2Response is the proof: 192 bytes per partition, concatenated (1920 bytes at
// 32/64 GiB), verified against the verifying key before it is returned.
type SealCommit2Response struct {
	Proof []byte
	Job   JobInfo
}

// PoStRequest asks for Winning or Window PoSt SNARKs from vanilla proofs (upstream
// generate_winning_post_with_vanilla / generate_single_window_post_with_vanilla).
type PoStRequest struct {
	ProofType abi.RegisteredPoStProof
	Miner     abi.ActorID
	// Randomness is the 32-byte PoSt randomness; the top two bits are cleared as lotus does.
	Randomness []byte
	// VanillaProofs are the bincode FallbackPoStSectorProof bytes, one per sector, in
	// challenge order. Ignored when Decoded is set.
	VanillaProofs [][]byte
	// Decoded lets in-process callers pass already decoded vanilla proofs.
	Decoded []*vanilla.FallbackPoStSectorProof `json:"-"`
	// Partition is the Window PoSt partition index the vanilla proofs belong to (0 for
	// Winning PoSt).
	Partition int
	Key       string
}

// PoStResponse carries one proof per partition (Winning: one; Window: the requested
// partition) and the sectors left out of it.
type PoStResponse struct {
	Proofs  []proof.PoStProof
	Skipped []abi.SectorID
	Job     JobInfo
}

// ProofTypeRef names one registered proof: exactly one of Seal, PoSt and Update is set (the
// numberings overlap).
type ProofTypeRef struct {
	Seal   *abi.RegisteredSealProof   `json:",omitempty"`
	PoSt   *abi.RegisteredPoStProof   `json:",omitempty"`
	Update *abi.RegisteredUpdateProof `json:",omitempty"`
}

// SealRef and PoStRef build a ProofTypeRef.
func SealRef(p abi.RegisteredSealProof) ProofTypeRef { return ProofTypeRef{Seal: &p} }

// PoStRef builds a ProofTypeRef for a PoSt proof.
func PoStRef(p abi.RegisteredPoStProof) ProofTypeRef { return ProofTypeRef{PoSt: &p} }

// UpdateRef builds a ProofTypeRef for a SnapDeals (sector update) proof.
func UpdateRef(p abi.RegisteredUpdateProof) ProofTypeRef { return ProofTypeRef{Update: &p} }

// PreloadResult says what Preload made resident.
type PreloadResult struct {
	CircuitID  string
	Provenance string // "official <file>" or "dev <file>"
	Took       time.Duration
	Resident   bool
}

// StageTiming is one partition's time split, in seconds-friendly durations.
type StageTiming struct {
	Partition int
	Worker    string
	Queue     time.Duration // submitted → synthesis start
	Synth     time.Duration // witness and A·z, B·z, C·z
	Handoff   time.Duration // waiting for a device worker
	Prove     time.Duration // quotient and MSMs
	Verify    time.Duration
	Total     time.Duration
	// Load is the time this partition spent making the circuit resident (recording or
	// recording lookup, host parameters, device proving key) and waiting for memory;
	// Witness is witness fill plus A·z, B·z, C·z. Both are parts of Queue+Synth+Handoff.
	Load    time.Duration
	Witness time.Duration
}

// JobInfo describes a job: what, where it stands, when, and its stage timings once done.
type JobInfo struct {
	ID         JobID
	Kind       JobKind
	ProofType  string // Rust variant name
	Priority   string
	State      JobState
	Partitions int
	// PartitionsDone counts the partitions proved so far; Timings has theirs while the
	// job runs, every partition's once it is done.
	PartitionsDone int
	// Sector names what is proved, for logs and status: "miner 1000 sector 7", or for a
	// PoSt the miner and its sectors.
	Sector    string
	Submitted time.Time
	Finished  time.Time `json:",omitempty"`
	Error     string    `json:",omitempty"`
	ErrorCode Code      `json:",omitempty"`
	Timings   []StageTiming
}

// JobResult is a finished job: its info and, on success, its proofs (SealCommit2: Proof;
// PoSt: PoSt).
type JobResult struct {
	Info  JobInfo
	Proof []byte        `json:",omitempty"`
	PoSt  *PoStResponse `json:",omitempty"`
}

// ProofTypeStatus says whether the service can prove one registered proof, and why not.
type ProofTypeStatus struct {
	Name     string
	Kind     string // "seal", "winning", "window", "update"
	Servable bool
	Reason   string `json:",omitempty"`
}

// ResidentSRS is one loaded parameter set.
type ResidentSRS struct {
	CircuitID  string
	Where      string // "host" or "device<N>"
	Bytes      int64
	Pinned     bool
	Provenance string
}

// QueueStatus counts jobs of one kind.
type QueueStatus struct {
	Queued, Running, Done, Failed int
}

// Status is the service's state for `snarkpipe status`.
type Status struct {
	Backend    string // "cpu" or "gpu: <device names>"
	Devices    []string
	DevParams  bool // dev (untrusted-setup) parameters are in use
	Draining   bool
	ProofTypes []ProofTypeStatus
	Queues     map[JobKind]QueueStatus
	Resident   []ResidentSRS
	Recent     []JobInfo
	// PartitionsQueued wait for synthesis; PartitionsHandoff are synthesized and wait for a
	// device worker (the pipeline's two queues, all kinds together).
	PartitionsQueued, PartitionsHandoff int
}

// ReplicaUpdateRequest asks for a SnapDeals proof (ProveReplicaUpdate2) from the vanilla
// partition proofs of a replica update.
type ReplicaUpdateRequest struct {
	Sector          abi.SectorID
	UpdateProofType abi.RegisteredUpdateProof
	// CommROld, CommRNew and CommDNew are the sector key's, the updated replica's and the
	// new data's commitments (32 bytes each).
	CommROld, CommRNew, CommDNew []byte
	VanillaProofs                [][]byte
	Key                          string
}

// ReplicaUpdateResponse is the SnapDeals proof (one 192-byte proof per partition).
type ReplicaUpdateResponse struct {
	Proof []byte
	Job   JobInfo
}
