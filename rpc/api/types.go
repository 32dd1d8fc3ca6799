package api

import (
	"time"

	"github.com/filecoin-project/go-state-types/abi"
	"github.com/filecoin-project/go-state-types/proof"
)

// JobID names a submitted job.
type JobID string

// SealCommit2Request asks for a PoRep C2: C1 is filecoin-ffi's C1 output (serde JSON),
// base64 in the request; Sector's miner and number enter replica_id and are checked.
type SealCommit2Request struct {
	Sector    abi.SectorID
	ProofType abi.RegisteredSealProof
	C1        []byte
	// Key, when set, makes submission idempotent (same key → same job while in flight or
	// recently succeeded).
	Key string `json:",omitempty"`
}

// SealCommit2Result is the proof (192 bytes per partition, concatenated), verified
// before it was returned.
type SealCommit2Result struct {
	Proof []byte
	Job   JobInfo
}

// PoStRequest asks for Winning PoSt, or one Window PoSt partition, from vanilla proofs
// (bincode FallbackPoStSectorProof, one per sector).
type PoStRequest struct {
	ProofType     abi.RegisteredPoStProof
	Miner         abi.ActorID
	Randomness    []byte
	VanillaProofs [][]byte
	Partition     int
	Key           string `json:",omitempty"`
}

// PoStResult carries the partition proof(s) and the sectors left out.
type PoStResult struct {
	Proofs  []proof.PoStProof
	Skipped []abi.SectorID
	Job     JobInfo
}

// ProofTypeRef names one registered proof: exactly one of Seal, PoSt and Update (SnapDeals).
type ProofTypeRef struct {
	Seal   *abi.RegisteredSealProof   `json:",omitempty"`
	PoSt   *abi.RegisteredPoStProof   `json:",omitempty"`
	Update *abi.RegisteredUpdateProof `json:",omitempty"`
}

// PreloadResult says what Preload made resident.
type PreloadResult struct {
	CircuitID  string
	Provenance string
	Took       time.Duration
	Resident   bool // true when this call loaded it
}

// StageTiming is where one partition's time went.
type StageTiming struct {
	Partition int
	Worker    string
	Queue     time.Duration
	Synth     time.Duration
	Handoff   time.Duration
	Prove     time.Duration
	Verify    time.Duration
	Total     time.Duration
	Load      time.Duration // making the circuit resident and waiting for memory
	Witness   time.Duration // witness fill and A·z, B·z, C·z
}

// JobInfo describes a job.
type JobInfo struct {
	ID         JobID
	Kind       string // "seal-commit2", "winning-post", "window-post"
	ProofType  string
	Priority   string
	State      string // "queued", "running", "done", "failed", "cancelled"
	Partitions int
	// PartitionsDone counts the partitions proved so far; while the job runs, Timings has
	// theirs.
	PartitionsDone int `json:",omitempty"`
	// Sector names what is proved: "miner 1000 sector 7", or the miner and PoSt sectors.
	Sector    string `json:",omitempty"`
	Submitted time.Time
	Finished  time.Time `json:",omitempty"`
	Error     string    `json:",omitempty"`
	ErrorCode Code      `json:",omitempty"`
	Timings   []StageTiming
}

// JobResult is a finished job: SealCommit2 fills Proof, PoSt jobs fill PoSt.
type JobResult struct {
	Info  JobInfo
	Proof []byte      `json:",omitempty"`
	PoSt  *PoStResult `json:",omitempty"`
}

// ProofTypeStatus says whether the daemon proves one registered proof, and why not.
type ProofTypeStatus struct {
	Name     string
	Kind     string
	Servable bool
	Reason   string `json:",omitempty"`
}

// ResidentSRS is one loaded parameter set and where it came from.
type ResidentSRS struct {
	CircuitID  string
	Where      string
	Bytes      int64
	Pinned     bool
	Provenance string
}

// QueueStatus counts the jobs of one kind.
type QueueStatus struct {
	Queued, Running, Done, Failed int
}

// Status is the daemon's state.
type Status struct {
	Version    string
	Backend    string
	Devices    []string
	DevParams  bool
	Draining   bool
	ProofTypes []ProofTypeStatus
	Queues     map[string]QueueStatus
	Resident   []ResidentSRS
	Recent     []JobInfo
	// Partitions waiting for synthesis, and synthesized ones waiting for a device worker.
	PartitionsQueued, PartitionsHandoff int
}

// ReplicaUpdateRequest asks for a SnapDeals proof from its vanilla partition proofs.
type ReplicaUpdateRequest struct {
	Sector                       abi.SectorID
	UpdateProofType              abi.RegisteredUpdateProof
	CommROld, CommRNew, CommDNew []byte
	VanillaProofs                [][]byte
	Key                          string `json:",omitempty"`
}

// ReplicaUpdateResult is the SnapDeals proof.
type ReplicaUpdateResult struct {
	Proof []byte
	Job   JobInfo
}
