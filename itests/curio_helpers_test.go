package itests

import (
	"context"
	"encoding/hex"
	"fmt"
	"testing"
	"time"

	"github.com/filecoin-project/go-state-types/abi"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/snarkpipe/snarkpipe/itests/kit"
	"github.com/snarkpipe/snarkpipe/rpc/cuzk/cuzkpb"
	"github.com/snarkpipe/snarkpipe/types"
	"github.com/snarkpipe/snarkpipe/types/vanilla"
)

// curioMessageBytes is the message limit Curio's cuzk client sets both ways.
const curioMessageBytes = 256 << 20

// curioClient behaves as Curio's lib/cuzk Client: one lazily used gRPC connection with
// insecure credentials and 256 MiB messages, Prove mapping FAILED/CANCELLED/TIMEOUT to
// errors, GetStatus with a 5 s bound, HasCapacity = maxPending − Σ(pending + in_progress),
// and one limiter shared by every task type (harmony's TaskMax), so that Curio never has
// more than maxPending proofs of its own in flight.
type curioClient struct {
	svc        cuzkpb.ProvingEngineClient
	maxPending int
	taskMax    chan struct{}
}

func dialCurio(t testing.TB, addr string, maxPending int) *curioClient {
	t.Helper()
	conn, err := grpc.NewClient(addr,
		grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(curioMessageBytes), grpc.MaxCallSendMsgSize(curioMessageBytes)))
	if err != nil {
		t.Fatalf("dial %s: %v", addr, err)
	}
	t.Cleanup(func() { conn.Close() })
	return &curioClient{svc: cuzkpb.NewProvingEngineClient(conn), maxPending: maxPending, taskMax: make(chan struct{}, maxPending)}
}

// errProofStatus is a Prove answer that carried no proof (FAILED, CANCELLED, TIMEOUT).
type errProofStatus struct {
	Status  cuzkpb.AwaitProofResponse_Status
	Message string
}

func (e *errProofStatus) Error() string {
	return fmt.Sprintf("cuzk proof %s: %s", e.Status, e.Message)
}

// prove is Curio's Client.Prove: the gRPC error as is (its status code intact), or the
// completed result.
func (c *curioClient) prove(ctx context.Context, req *cuzkpb.SubmitProofRequest) (*cuzkpb.AwaitProofResponse, error) {
	resp, err := c.svc.Prove(ctx, &cuzkpb.ProveRequest{Submit: req})
	if err != nil {
		return nil, err
	}
	res := resp.GetResult()
	if res == nil {
		return nil, fmt.Errorf("cuzk Prove returned nil result")
	}
	if res.GetStatus() != cuzkpb.AwaitProofResponse_COMPLETED {
		return nil, &errProofStatus{Status: res.GetStatus(), Message: res.GetErrorMessage()}
	}
	return res, nil
}

func (c *curioClient) status(ctx context.Context) (*cuzkpb.GetStatusResponse, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	return c.svc.GetStatus(ctx, &cuzkpb.GetStatusRequest{})
}

// inFlight is what Curio's back-pressure counts: Σ pending + in_progress over the queues.
func inFlight(st *cuzkpb.GetStatusResponse) int {
	n := 0
	for _, q := range st.GetQueues() {
		n += int(q.GetPending() + q.GetInProgress())
	}
	return n
}

// hasCapacity is Curio's HasCapacity: how many more proofs the daemon takes, never < 0.
func (c *curioClient) hasCapacity(ctx context.Context) (int, error) {
	st, err := c.status(ctx)
	if err != nil {
		return 0, err
	}
	return max(c.maxPending-inFlight(st), 0), nil
}

// proveWhenReady is a Curio task: it takes a slot of the shared limiter (harmony does
// before it claims a task), waits until GetStatus shows capacity (CanAccept), then
// proves.
func (c *curioClient) proveWhenReady(ctx context.Context, req *cuzkpb.SubmitProofRequest) (*cuzkpb.AwaitProofResponse, error) {
	select {
	case c.taskMax <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	defer func() { <-c.taskMax }()
	for {
		n, err := c.hasCapacity(ctx)
		if err != nil {
			return nil, err
		}
		if n > 0 {
			return c.prove(ctx, req)
		}
		select {
		case <-time.After(100 * time.Millisecond):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// Curio's requests (lib/ffi/cuzk_funcs.go): request ids porep-<miner>-<sector>,
// wdpost-<miner>-<partition>-<hex rand[:8]>, winpost-<miner>-<hex rand[:8]>; the PoRep
// vanilla proof is the lotus-bench Commit2In JSON wrapper around the C1 output; PoSt
// vanilla proofs are one bincode FallbackPoStSectorProof per sector.

// curioPoRep is the request PoRepSnarkCuzk sends for a sector's C1 output.
func curioPoRep(t testing.TB, s *kit.Sector, c1 []byte) *cuzkpb.SubmitProofRequest {
	t.Helper()
	info, err := types.SealProof(s.SealProof)
	if err != nil {
		t.Fatal(err)
	}
	wrapper, err := vanilla.EncodeCommit2In(&vanilla.Commit2In{SectorNum: int64(s.ID.Number), Phase1Out: c1, SectorSize: info.SectorSize})
	if err != nil {
		t.Fatal(err)
	}
	return &cuzkpb.SubmitProofRequest{
		RequestId: fmt.Sprintf("porep-%d-%d", s.ID.Miner, s.ID.Number),
		ProofKind: cuzkpb.ProofKind_POREP_SEAL_COMMIT, SectorSize: info.SectorSize,
		RegisteredProof: uint64(s.SealProof), Priority: cuzkpb.Priority_NORMAL,
		VanillaProof: wrapper, SectorNumber: uint64(s.ID.Number), MinerId: uint64(s.ID.Miner),
	}
}

// winningPoSt2KiB and windowPoSt2KiB are the PoSt types of the fixture sectors (Window as
// Curio names it today, V1_1).
const (
	winningPoSt2KiB = abi.RegisteredPoStProof_StackedDrgWinning2KiBV1
	windowPoSt2KiB  = abi.RegisteredPoStProof_StackedDrgWindow2KiBV1_1
)

// curioWinning is the request WinningPoStCuzk sends for one challenged sector.
func curioWinning(t testing.TB, s *kit.Sector, rand []byte) *cuzkpb.SubmitProofRequest {
	t.Helper()
	v, err := s.Vanilla(winningPoSt2KiB, rand, 0)
	if err != nil {
		t.Fatal(err)
	}
	info, _ := types.PoStProof(winningPoSt2KiB)
	return &cuzkpb.SubmitProofRequest{
		RequestId: fmt.Sprintf("winpost-%d-%s", s.ID.Miner, hex.EncodeToString(rand[:8])),
		ProofKind: cuzkpb.ProofKind_WINNING_POST, SectorSize: info.SectorSize,
		RegisteredProof: uint64(winningPoSt2KiB), Priority: cuzkpb.Priority_CRITICAL,
		VanillaProofs: [][]byte{v}, MinerId: uint64(s.ID.Miner), Randomness: rand,
	}
}

// curioWindow is the request WindowPoStCuzk sends for partition 0 over sectors, in order.
func curioWindow(t testing.TB, sectors []*kit.Sector, rand []byte) *cuzkpb.SubmitProofRequest {
	t.Helper()
	info, _ := types.PoStProof(windowPoSt2KiB)
	req := &cuzkpb.SubmitProofRequest{
		RequestId: fmt.Sprintf("wdpost-%d-0-%s", sectors[0].ID.Miner, hex.EncodeToString(rand[:8])),
		ProofKind: cuzkpb.ProofKind_WINDOW_POST_PARTITION, SectorSize: info.SectorSize,
		RegisteredProof: uint64(windowPoSt2KiB), Priority: cuzkpb.Priority_HIGH,
		MinerId: uint64(sectors[0].ID.Miner), Randomness: rand, PartitionIndex: 0,
	}
	for i, s := range sectors {
		v, err := s.Vanilla(windowPoSt2KiB, rand, i)
		if err != nil {
			t.Fatal(err)
		}
		req.VanillaProofs = append(req.VanillaProofs, v)
	}
	return req
}

// postSectors lists sectors as the chain does for PoSt verification.
func postSectors(sectors ...*kit.Sector) []kit.PoStSector {
	out := make([]kit.PoStSector, len(sectors))
	for i, s := range sectors {
		out[i] = kit.PoStSector{Number: s.ID.Number, CommR: s.CommR}
	}
	return out
}

// randomness is a PoSt challenge seed distinct per n (what the chain draws per epoch).
func randomness(n int) []byte {
	r := make([]byte, 32)
	for i := range r {
		r[i] = byte(n*37 + i*11 + 3)
	}
	r[31] &= 0x3f
	return r
}
