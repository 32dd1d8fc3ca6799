package cuzk

import (
	"context"
	"strings"
	"testing"

	"github.com/filecoin-project/go-state-types/abi"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/snarkpipe/snarkpipe/rpc/cuzk/cuzkpb"
)

// FuzzSubmitProofRequest feeds arbitrary bytes through the request decoding and the
// payload checks: no panic, every refusal a gRPC status, and an admitted request reaches
// the service with the request's own sector, miner and key. Seeds: testdata/fuzz and the
// Curio-shaped requests below.
func FuzzSubmitProofRequest(f *testing.F) {
	for _, req := range []*cuzkpb.SubmitProofRequest{
		porepRequest(&testing.T{}, "porep-1000-7", 7),
		windowRequest("wdpost-1000-0-x"),
		{RequestId: "winpost-1000-aa", ProofKind: cuzkpb.ProofKind_WINNING_POST, RegisteredProof: uint64(abi.RegisteredPoStProof_StackedDrgWinning2KiBV1), VanillaProofs: [][]byte{{1}}, Randomness: seq(32, 3)},
		{ProofKind: cuzkpb.ProofKind_SNAP_DEALS_UPDATE, CommROld: seq(32, 0)},
		snapRequest(),
	} {
		b, err := proto.Marshal(req)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var req cuzkpb.SubmitProofRequest
		if proto.Unmarshal(data, &req) != nil {
			return
		}
		fp := newFakeProver()
		id, err := submit(context.Background(), fp, &req)
		if err != nil {
			if _, ok := status.FromError(err); !ok {
				t.Fatalf("refusal is not a gRPC status: %v", err)
			}
			return
		}
		if id == "" {
			t.Fatal("admitted without a job id")
		}
		switch {
		case len(fp.seals) == 1:
			s := fp.seals[0]
			if uint64(s.Sector.Number) != req.GetSectorNumber() || uint64(s.Sector.Miner) != req.GetMinerId() || !keyOf(s.Key, req.GetRequestId()) {
				t.Fatalf("seal request %+v from %v", s, &req)
			}
		case len(fp.posts) == 1:
			p := fp.posts[0]
			if uint64(p.Miner) != req.GetMinerId() || len(p.Randomness) != 32 || !keyOf(p.Key, req.GetRequestId()) || p.Partition != int(req.GetPartitionIndex()) {
				t.Fatalf("post request %+v from %v", p, &req)
			}
		case len(fp.updates) == 1:
			u := fp.updates[0]
			if uint64(u.Sector.Number) != req.GetSectorNumber() || uint64(u.Sector.Miner) != req.GetMinerId() || !keyOf(u.Key, req.GetRequestId()) ||
				len(u.CommROld) != 32 || len(u.CommRNew) != 32 || len(u.CommDNew) != 32 || len(u.VanillaProofs) == 0 {
				t.Fatalf("update request %+v from %v", u, &req)
			}
		default:
			t.Fatalf("admitted request reached the service %d+%d+%d times", len(fp.seals), len(fp.posts), len(fp.updates))
		}
		fp.releaseAll()
	})
}

// keyOf says whether a service key belongs to a request_id ("" has no key).
func keyOf(key, requestID string) bool {
	if requestID == "" {
		return key == ""
	}
	return strings.HasPrefix(key, requestID+"#")
}
