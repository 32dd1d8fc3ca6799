// Package pipeline is the proving engine: jobs, priorities, memory budgets, circuit
// residency, recorded constraint systems, and the stages partitions flow through.
//
// # Flow
//
// A job is one or more circuits of one circuit id (the partitions of a proof), a priority
// and an optional idempotency key. Submit queues its partitions and returns; Await
// returns the proofs and per-stage timings. Partitions, not jobs, are the unit of work:
//
//	run queue (priority, then job age, then partition index)
//	  → synthesis pool: prepare the circuit id, admit on the host, witness fill,
//	    then A·z B·z C·z on the host, or (pre-compiled path) nothing or bit-packing;
//	    SynthesisWorkers take any partition, CriticalWorkers only Critical ones
//	  → bounded hand-off (same order; Critical partitions pass the bound)
//	  → device workers (WorkersPerDevice per backend): admit on the device, prove
//	  → finalize: verify against the verifying key, complete the partition
//
// A queued partition of a higher priority is always taken before any queued partition of
// a lower one, at every stage; work already running is not interrupted. A synthesis worker
// that finds the hand-off full queues its partition at once and then waits, so it keeps
// its place in that order. A worker holds its partition through the host admission and
// the witness (seconds at 32 GiB), so the critical workers exist for Winning PoSt: it
// must not wait for every worker to finish a C2 partition, nor for a device worker to
// take one from a full hand-off.
//
// Cross-job batching (Config.MaxBatch > 1, off by default): a device worker proves the
// partitions of one resident circuit that are next in the hand-off, from any jobs, in one
// call, waiting up to MaxBatchWait for more; it never takes work out of order. The current
// backends prove a batch circuit by circuit, so it pays only with a backend that shares
// work across circuits.
//
// # Recordings and witness-only synthesis
//
// The first time a process sees a circuit id it learns the recording key (a 128-bit hash
// of every allocation and every row's raw terms). The key names the recording on disk
// (RecordingsDir, with the shape-file format version, under a disk budget), so a changed
// gadget never reuses a stale recording; a missing, corrupt or other-version file is
// recorded again. Capacity hints (sizes, memory) are kept per circuit id beside the
// recordings, so a restarted service admits and refuses jobs before synthesizing anything.
//
// As the key is a hash of the synthesis, the disk can only be searched after one, and a
// missing recording costs a second synthesis into the recorder. What costs more than the
// hash-only synthesis, though, is a recorder growing its matrices from empty (copying
// them again and again). So the hash-only synthesis also counts rows,
// variables and terms per matrix (merged as the recorder merges them, after hashing them
// raw), and the recording that follows starts with buffers of exactly that size: a first
// start is a cheap hash-only synthesis plus a recording that never grows. When the id already has a
// capacity hint (recordings deleted, trimmed by the disk budget, or kept in memory only)
// and the store has no file of the id under any key, so nothing on disk can match, one
// synthesis into the hasher and a hint-sized recorder gives both the key and the
// recording. A file of the id on disk (a restart) keeps hash, then load. The key is the
// same on every path: the hasher sees each row before the recorder merges its terms.
// A finished recording keeps no more than 5 % spare capacity per buffer (trim.go: a
// safety net for recorders not sized by the probe), and a new recording is written to the store in
// the background once it is resident (saver.go): the first partition does not wait for
// the write, Close waits for pending saves, and a failed save only costs the next process
// a recording. Figures: docs/BENCHMARKS.md, "Cold-start recording in one pass".
//
// A circuit made of a head and equal parts (prover.PartedCircuit: the sectors of a PoSt
// partition, the challenges of a PoRep one) is recorded part by part on all but one core,
// each part straight into its window of the recording, while the remaining core
// synthesizes it whole into the hasher; the parts are joined in order into the same
// recording (recordparts.go, r1cs.RecordParts), key included. When no file of its id can
// be on disk, its first start skips the hash-only probe: part 0 recorded alone sizes the
// recorder.
//
// Every later partition runs only witness generation: the circuit's WitnessFiller when it
// has one, otherwise Synthesize into a constraint system that stores values and ignores
// rows. The recorded matrices then compute A·z, B·z and C·z.
//
// # The pre-compiled path
//
// A device whose backend implements backend.ShapeEvaluator (the GPU) proves through a
// groth16.ResidentCircuit: the recording is made resident on the device beside the
// proving key, in the same arena entry (loaded, counted, evicted and closed together), and
// the device computes A·z, B·z, C·z from z alone. When every device has that path, the
// synthesis worker only fills z, and slots carry no row vectors (a quarter of the host-path
// slot); when every device also takes a packed witness (backend.PackedShapeEvaluator),
// the synthesis worker bit-packs the aux part of z in place (backend.PackAux's format:
// bitmaps in the slot, the other values compacted to the front of z). A pipeline with a
// device lacking the path (the CPU) evaluates the rows on the host for every partition,
// since any device may take any partition; resident devices then ignore the rows. Slots
// are page-locked once through the first resident device's backend.HostPinner (pooled
// slots keep their pin) and unpinned by the freer when freed. With Config.PreloadSlots a
// Preload allocates and page-locks the slots the circuit's first proof would otherwise
// take while running (page-locking stalls the device's uploads meanwhile).
//
// # Keys
//
// Proving keys come from the host parameters (Deps.Params: official or dev files, loaded
// once on the host, uploaded per device), or are made directly on each device by a
// KeySource (Deps.Keys; BenchKeys makes INSECURE benchmark keys from a stream seeded by
// the circuit id: groth16.BenchSetup on a backend.KeyGenerator, DevSetup elsewhere). With
// Keys the host holds only the recording, and each proof is verified against the
// verifying key of the key that made it; a KeySource must be deterministic per circuit
// id so that every device shares one verifying key.
//
// The key is probed once per process and circuit id (circuit code does not change in a
// running process), unless the id's persisted hint was probed by the same code
// (Deps.CodeID, a hash of the binary): then its key is trusted and a restart only reads
// the recording. Signs that a resident recording does not match the circuit anyway (a
// witness with other sizes: ErrCircuitChanged; a proof that fails verification) fail that
// job, retire the recording and make the next job probe and load afresh. Every proof is
// verified against the verifying key before it is returned, so a mismatch can cost a job
// but never yields an invalid proof. Circuit panics are contained (ErrCircuitPanicked).
//
// # Memory
//
// There is one budget for the host and one per device (Config; the device budget defaults
// to the host's, as the backend interface does not report device memory yet). Everything that occupies
// memory holds a reservation: a resident circuit (host: recording + parameters, or the
// recording alone with Keys; device: proving key, plus the resident recording on the
// pre-compiled path), each partition's working set (host: one pooled slot holding z and,
// per the path, a, b, c or the witness bitmaps; device: z, a, b, c), idle pooled slots,
// and memory queued for release. A partition
// reserves its working set and, if its circuit is not resident, the circuit's bytes, in
// one all-or-nothing step: nobody holds a reference while waiting for memory, so waits
// cannot deadlock. Requests are served strictly in priority order (then FIFO): a large
// high-priority request is not overtaken by small lower-priority ones. A request larger
// than the budget minus the other pinned circuits fails at once with ErrTooLarge.
//
// Working-set slots are pooled per shape and reused; large ones live off the Go heap. No
// free happens on a proving path: evicted circuits and surplus slots are released by one
// background goroutine, in order, and their bytes stay reserved until it is done.
//
// # Residency policy
//
//   - A circuit is loaded (recording, then parameters; proving key per device) once, by the
//     first partition admitted for it, and stays resident after its work is done. Other
//     partitions of it wait for that load; load times are reported in the timings, in
//     Preload's result and as snarkpipe_srs_load_seconds.
//   - Resident circuits are reference-counted by the partitions using them. Only idle ones
//     (no reference) can be evicted; pinned circuits (Config.Pinned: small SRS such as
//     Winning PoSt) never are, except by an explicit Evict.
//   - Eviction happens only when a request at the head of the queue needs room: idle pooled
//     slots go first, then idle unpinned circuits, least recently used first, and only
//     as many as the request needs, and only if that is enough for it (nothing is evicted
//     for a request that would still have to wait).
//   - When a higher-priority job needs a circuit that is not resident and the room is held
//     by circuits in use, it waits at the head of the queue: lower-priority partitions
//     admitted earlier finish, their circuits become idle and are evicted for it; no
//     lower-priority partition is admitted meanwhile.
//   - Evicting a circuit from the host also drops its proving keys from the devices (they
//     reference its parameters). Preload and Evict act on demand.
//
// # Observability
//
// Every partition carries its stage timestamps and durations (PartitionTiming). Metrics
// are registered under snarkpipe_pipeline_*, snarkpipe_srs_* and snarkpipe_memory_*.
// WriteTrace writes the recent stages as a Chrome trace-event timeline, one track per
// worker.
package pipeline
