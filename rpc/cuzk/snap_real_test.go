package cuzk

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/filecoin-project/go-state-types/abi"
	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/proto"

	"github.com/snarkpipe/snarkpipe/prover"
	"github.com/snarkpipe/snarkpipe/prover/groth16"
	"github.com/snarkpipe/snarkpipe/prover/pipeline"
	"github.com/snarkpipe/snarkpipe/prover/srs/srstest"
	"github.com/snarkpipe/snarkpipe/rpc/cuzk/cuzkpb"
	"github.com/snarkpipe/snarkpipe/sealer"
	"github.com/snarkpipe/snarkpipe/sealer/refseal"
	"github.com/snarkpipe/snarkpipe/sealer/update"
	"github.com/snarkpipe/snarkpipe/types"
)

// snapUpdate2K is a 2 KiB sector update by the reference updater and the request Curio's
// SnapDeals path (cuzk_funcs.go) makes of it: raw commitments, one bincode PartitionProof
// per partition, request_id snap-<miner>-<sector>.
func snapUpdate2K(t *testing.T) (*refseal.SectorUpdate, *cuzkpb.SubmitProofRequest) {
	t.Helper()
	info, err := types.UpdateProof(abi.RegisteredUpdateProof_StackedDrg2KiBV1)
	if err != nil {
		t.Fatal(err)
	}
	u, err := refseal.PatternUpdate(info, 5)
	if err != nil {
		t.Fatal(err)
	}
	vproofs, err := u.EncodedPartitionProofs()
	if err != nil {
		t.Fatal(err)
	}
	req := &cuzkpb.SubmitProofRequest{
		RequestId: "snap-1000-12", ProofKind: cuzkpb.ProofKind_SNAP_DEALS_UPDATE, SectorSize: info.SectorSize,
		RegisteredProof: uint64(info.ID), Priority: cuzkpb.Priority_NORMAL, SectorNumber: 12, MinerId: 1000,
		CommROld: u.CommROld[:], CommRNew: u.CommRNew[:], CommDNew: u.CommDNew[:],
		VanillaProofs: vproofs,
	}
	return u, req
}

// closedPipeline stands in for the pipeline behind a real sealer.Service: it counts what
// reaches it and refuses it as closed.
type closedPipeline struct {
	mu   sync.Mutex
	jobs []pipeline.JobSpec
}

func (p *closedPipeline) Submit(_ context.Context, spec pipeline.JobSpec) (*pipeline.Job, error) {
	p.mu.Lock()
	p.jobs = append(p.jobs, spec)
	p.mu.Unlock()
	return nil, pipeline.ErrClosed
}

func (p *closedPipeline) Preload(context.Context, prover.Circuit) (pipeline.LoadInfo, error) {
	return pipeline.LoadInfo{}, pipeline.ErrClosed
}
func (p *closedPipeline) Evict(prover.CircuitID) (bool, error) { return false, nil }
func (p *closedPipeline) Status() pipeline.Status              { return pipeline.Status{} }

// TestCurioSnapCorruptedVanilla: over a unix socket, the real service refuses a SnapDeals
// request whose vanilla partition proof was corrupted, through Prove and through
// SubmitProof, with InvalidArgument naming the failed check, before anything reaches the
// prover; the intact request is admitted (and reaches the prover as the 2 KiB update
// circuit, which this stub refuses as Unavailable).
func TestCurioSnapCorruptedVanilla(t *testing.T) {
	u, good := snapUpdate2K(t)
	pipe := &closedPipeline{}
	svc, err := sealer.New(sealer.DefaultConfig(), sealer.Deps{Prover: pipe, Backend: "cpu"})
	if err != nil {
		t.Fatal(err)
	}
	s, err := NewServer(unixConfig(t), svc)
	if err != nil {
		t.Fatal(err)
	}
	l, err := s.Listen()
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = s.Serve(l) }()
	t.Cleanup(func() { s.Stop(time.Second) })
	c := dialCurio(t, s.cfg.Listen, 10)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	bad := proto.Clone(good).(*cuzkpb.SubmitProofRequest)
	bad.RequestId = "snap-1000-13"
	v := append([]byte(nil), good.VanillaProofs[0]...)
	v[len(v)/2] ^= 1
	bad.VanillaProofs = [][]byte{v}
	_, err = c.svc.Prove(ctx, &cuzkpb.ProveRequest{Submit: bad})
	wantCode(t, err, codes.InvalidArgument, "invalid update vanilla proof: partition 0")
	wantCode(t, err, codes.InvalidArgument, "check failed")
	t.Logf("corrupted vanilla through Prove: %v", err)
	_, err = c.svc.SubmitProof(ctx, bad)
	wantCode(t, err, codes.InvalidArgument, "check failed")
	pipe.mu.Lock()
	n := len(pipe.jobs)
	pipe.mu.Unlock()
	if n != 0 {
		t.Fatalf("%d jobs reached the prover", n)
	}

	_, err = c.svc.SubmitProof(ctx, good)
	wantCode(t, err, codes.Unavailable, "")
	pipe.mu.Lock()
	defer pipe.mu.Unlock()
	if len(pipe.jobs) != 1 || len(pipe.jobs[0].Circuits) != u.Info.PartitionCount || pipe.jobs[0].Circuits[0].ID() != prover.CircuitID(u.Info.CircuitID) {
		t.Fatalf("prover got %+v", pipe.jobs)
	}
}

// TestCurioSnapRealService proves a 2 KiB SnapDeals update over gRPC the queued way
// (SubmitProof, then AwaitProof by request_id) against the real service and checks the
// proof against the dev verifying key with public inputs computed here. Skipped with
// -short: a 2 KiB update proof (1.7 M constraints) on the CPU takes minutes on 2 cores.
func TestCurioSnapRealService(t *testing.T) {
	if testing.Short() {
		t.Skip("proves a 2 KiB SnapDeals update on the CPU: skipped with -short")
	}
	u, req := snapUpdate2K(t)
	s, err := NewServer(tcpConfig(), newRealService(t))
	if err != nil {
		t.Fatal(err)
	}
	l, err := s.Listen()
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = s.Serve(l) }()
	t.Cleanup(func() { s.Stop(time.Second) })
	c := dialCurio(t, l.Addr().String(), 10)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	start := time.Now()
	sub, err := c.svc.SubmitProof(ctx, req)
	if err != nil || sub.GetJobId() != req.RequestId {
		t.Fatalf("SubmitProof: %v %v", sub, err)
	}
	res, err := c.svc.AwaitProof(ctx, &cuzkpb.AwaitProofRequest{JobId: req.RequestId})
	if err != nil || res.GetStatus() != cuzkpb.AwaitProofResponse_COMPLETED {
		t.Fatalf("AwaitProof: %v %v", res, err)
	}
	t.Logf("2 KiB SnapDeals over gRPC in %v", time.Since(start))

	info := u.Info
	proofs, err := u.PartitionProofs()
	if err != nil {
		t.Fatal(err)
	}
	circuits, err := update.Circuits(info, u.CommROld, u.CommDNew, u.CommRNew, proofs)
	if err != nil {
		t.Fatal(err)
	}
	blank, err := update.Blank(update.ConfigFor(info))
	if err != nil {
		t.Fatal(err)
	}
	_, params := srstest.DevParams(t, blank)
	vk := params.VK
	params.Close()
	got, err := groth16.DecodeProofs(res.GetProof())
	if err != nil || len(got) != len(circuits) {
		t.Fatalf("%d proofs for %d partitions, %v", len(got), len(circuits), err)
	}
	for k, circuit := range circuits {
		public, err := update.ConfigFor(info).InputVector(&circuit.Public)
		if err != nil {
			t.Fatal(err)
		}
		if err := vk.Verify(&got[k], public); err != nil {
			t.Fatalf("partition %d: %v", k, err)
		}
		wrong := append([]fr.Element(nil), public...)
		wrong[len(wrong)-1].SetUint64(12345) // comm_r_new
		if vk.Verify(&got[k], wrong) == nil {
			t.Fatalf("partition %d verifies with another comm_r_new", k)
		}
	}
}
