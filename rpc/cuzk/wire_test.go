package cuzk

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"

	"github.com/snarkpipe/snarkpipe/rpc/cuzk/cuzkpb"
)

// The golden encodings below are written by hand from the field numbers and wire types of
// Curio's proving.proto (commit e0294b0f), in field-number order as protobuf encoders
// emit them. Each line is one field: tag byte(s), then length or varint value.

// hx joins hex groups ("0a 03" ...) and raw text pieces (prefixed with "'") into bytes.
func hx(t *testing.T, parts ...string) []byte {
	t.Helper()
	var out []byte
	for _, p := range parts {
		if s, ok := strings.CutPrefix(p, "'"); ok {
			out = append(out, s...)
			continue
		}
		b, err := hex.DecodeString(strings.ReplaceAll(p, " ", ""))
		if err != nil {
			t.Fatalf("bad hex %q: %v", p, err)
		}
		out = append(out, b...)
	}
	return out
}

func seq(n int, start byte) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = start + byte(i)
	}
	return b
}

func TestGoldenSubmitProofRequest(t *testing.T) {
	r32 := seq(32, 0x40)
	cro, crn, cdn := seq(32, 0x60), seq(32, 0x80), seq(32, 0xa0)
	golden := hx(t,
		"0a 0f", "'wdpost-1000-3-x", // 1 request_id
		"10 03",                // 2 proof_kind = WINDOW_POST_PARTITION
		"18 80 80 80 80 80 01", // 3 sector_size = 32 GiB
		"20 0d",                // 4 registered_proof = 13
		"28 03",                // 5 priority = HIGH
		"52 02", "'{}",         // 10 vanilla_proof
		"5a 03 010203", "5a 00", "5a 01 ff", // 11 vanilla_proofs ×3 (one empty)
		"a0 01 2a",                          // 20 sector_number = 42
		"a8 01 e8 07",                       // 21 miner_id = 1000
		"b2 01 20", hex.EncodeToString(r32), // 22 randomness
		"b8 01 03",                          // 23 partition_index = 3
		"f2 01 20", hex.EncodeToString(cro), // 30 comm_r_old
		"fa 01 20", hex.EncodeToString(crn), // 31 comm_r_new
		"82 02 20", hex.EncodeToString(cdn), // 32 comm_d_new
	)
	want := &cuzkpb.SubmitProofRequest{
		RequestId:       "wdpost-1000-3-x",
		ProofKind:       cuzkpb.ProofKind_WINDOW_POST_PARTITION,
		SectorSize:      32 << 30,
		RegisteredProof: 13,
		Priority:        cuzkpb.Priority_HIGH,
		VanillaProof:    []byte("{}"),
		VanillaProofs:   [][]byte{{1, 2, 3}, {}, {0xff}},
		SectorNumber:    42,
		MinerId:         1000,
		Randomness:      r32,
		PartitionIndex:  3,
		CommROld:        cro,
		CommRNew:        crn,
		CommDNew:        cdn,
	}
	checkGolden(t, golden, want, &cuzkpb.SubmitProofRequest{})
}

func TestGoldenAwaitProofResponse(t *testing.T) {
	p := seq(192, 0)
	golden := hx(t,
		"0a 12", "'porep-1000-42-job1", // 1 job_id
		"10 01",                           // 2 status = COMPLETED
		"1a c0 01", hex.EncodeToString(p), // 3 proof, 192 bytes
		"22 02", "'ok", // 4 error_message
		"50 05",    // 10 queue_wait_ms
		"58 06",    // 11 srs_load_ms
		"60 ac 02", // 12 synthesis_ms = 300
		"68 e8 07", // 13 gpu_compute_ms = 1000
		"70 90 4e", // 14 total_ms = 10000
	)
	want := &cuzkpb.AwaitProofResponse{
		JobId: "porep-1000-42-job1", Status: cuzkpb.AwaitProofResponse_COMPLETED, Proof: p, ErrorMessage: "ok",
		QueueWaitMs: 5, SrsLoadMs: 6, SynthesisMs: 300, GpuComputeMs: 1000, TotalMs: 10000,
	}
	checkGolden(t, golden, want, &cuzkpb.AwaitProofResponse{})

	// The same result wrapped in a ProveResponse (field 1, embedded).
	if len(golden) != 234 {
		t.Fatalf("golden AwaitProofResponse is %d bytes, counted 234 by hand", len(golden))
	}
	wrapped := append(hx(t, "0a ea 01"), golden...) // 1 result, length 234
	checkGolden(t, wrapped, &cuzkpb.ProveResponse{Result: want}, &cuzkpb.ProveResponse{})
}

func TestGoldenGetStatusResponse(t *testing.T) {
	golden := hx(t,
		// 1 gpus: ordinal 1, name "H200", vram_total 35<<35, vram_free 1024, current_job_id "j", current_proof_kind "porep-c2"
		"0a 1f", "08 01", "12 04", "'H200", "18 80 80 80 80 80 23", "20 80 08", "2a 01", "'j", "32 08", "'porep-c2",
		// 2 loaded_srs: circuit_id "porep-32g", tier WARM, size_bytes 1000, ref_count 2
		"12 12", "0a 09", "'porep-32g", "10 01", "18 e8 07", "20 02",
		// 2 loaded_srs: tier HOT is the default (0) and is not encoded
		"12 0b", "0a 09", "'wpost-32g",
		// 3 queues: "porep-c2" pending 3 in_progress 2; "winning-post" all zero
		"1a 0e", "0a 08", "'porep-c2", "10 03", "18 02",
		"1a 0e", "0a 0c", "'winning-post",
		"20 07",    // 4 total_proofs_completed
		"28 01",    // 5 total_proofs_failed
		"30 90 1c", // 6 uptime_seconds = 3600
		"38 80 01", // 7 pinned_memory_bytes = 128
		"40 80 02", // 8 pinned_memory_limit_bytes = 256
	)
	want := &cuzkpb.GetStatusResponse{
		Gpus: []*cuzkpb.GPUStatus{{Ordinal: 1, Name: "H200", VramTotalBytes: 35 << 35, VramFreeBytes: 1024, CurrentJobId: "j", CurrentProofKind: "porep-c2"}},
		LoadedSrs: []*cuzkpb.SRSStatus{
			{CircuitId: "porep-32g", Tier: cuzkpb.SRSStatus_WARM, SizeBytes: 1000, RefCount: 2},
			{CircuitId: "wpost-32g", Tier: cuzkpb.SRSStatus_HOT},
		},
		Queues: []*cuzkpb.QueueStatus{
			{ProofKind: "porep-c2", Pending: 3, InProgress: 2},
			{ProofKind: "winning-post"},
		},
		TotalProofsCompleted: 7, TotalProofsFailed: 1, UptimeSeconds: 3600,
		PinnedMemoryBytes: 128, PinnedMemoryLimitBytes: 256,
	}
	checkGolden(t, golden, want, &cuzkpb.GetStatusResponse{})
}

// checkGolden decodes golden into fresh, compares it with want, and re-encodes both the
// decoded and the expected message to exactly golden.
func checkGolden(t *testing.T, golden []byte, want, fresh proto.Message) {
	t.Helper()
	if err := proto.Unmarshal(golden, fresh); err != nil {
		t.Fatalf("decode: %v", err)
	}
	if !proto.Equal(fresh, want) {
		t.Fatalf("decoded\n%v\nwant\n%v", fresh, want)
	}
	if len(fresh.ProtoReflect().GetUnknown()) != 0 {
		t.Fatalf("decoded with unknown fields %x: a field number is wrong", fresh.ProtoReflect().GetUnknown())
	}
	for name, m := range map[string]proto.Message{"decoded": fresh, "expected": want} {
		b, err := proto.MarshalOptions{Deterministic: true}.Marshal(m)
		if err != nil {
			t.Fatalf("encode %s: %v", name, err)
		}
		if !bytes.Equal(b, golden) {
			t.Fatalf("%s re-encodes to\n%x\nwant\n%x", name, b, golden)
		}
	}
}

// curioDescriptorSHA256 is the SHA-256 of the deterministic encoding of the
// FileDescriptorProto in Curio's generated lib/cuzk/proving.pb.go (commit e0294b0f), with
// file options and source info cleared (they hold only go_package and comments): 3511
// bytes. Ours must encode to the same bytes: same package, names, numbers, types, labels,
// enum values, services and methods.
const curioDescriptorSHA256 = "87c4a5b0c0bbaf27a2f854e21cd4f18f391924da08b0e4a1dacd7a023899752b"

func TestDescriptorMatchesCurio(t *testing.T) {
	fd := protodesc.ToFileDescriptorProto(cuzkpb.File_cuzk_v1_proving_proto)
	fd.Options, fd.SourceCodeInfo = nil, nil
	b, err := proto.MarshalOptions{Deterministic: true}.Marshal(fd)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	if got := hex.EncodeToString(sum[:]); got != curioDescriptorSHA256 || len(b) != 3511 {
		t.Fatalf("descriptor sha256 %s (%d bytes), want %s (3511 bytes): the .proto no longer matches Curio's (or a protobuf-go upgrade renders descriptors differently: recompute the hash from Curio's generated lib/cuzk/proving.pb.go the same way)", got, len(b), curioDescriptorSHA256)
	}
	if fd.GetName() != "cuzk/v1/proving.proto" || fd.GetPackage() != "cuzk.v1" {
		t.Fatalf("file %q package %q", fd.GetName(), fd.GetPackage())
	}
}
