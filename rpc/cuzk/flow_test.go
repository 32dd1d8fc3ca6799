package cuzk

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/filecoin-project/go-state-types/abi"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/snarkpipe/snarkpipe/rpc/cuzk/cuzkpb"
)

// curioClient does what Curio's lib/cuzk client does with a daemon address: unix:// or
// dns:/// target, insecure credentials, 256 MiB messages both ways, Prove for proofs,
// GetStatus for capacity.
type curioClient struct {
	conn       *grpc.ClientConn
	svc        cuzkpb.ProvingEngineClient
	maxPending int
}

func dialCurio(t *testing.T, addr string, maxPending int) *curioClient {
	t.Helper()
	target := addr
	if !strings.Contains(target, "://") && !strings.HasPrefix(target, "unix:") {
		target = "dns:///" + target
	}
	conn, err := grpc.NewClient(target,
		grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(256<<20), grpc.MaxCallSendMsgSize(256<<20)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	return &curioClient{conn: conn, svc: cuzkpb.NewProvingEngineClient(conn), maxPending: maxPending}
}

// prove returns the proof or an error for every non-COMPLETED status, as Curio does.
func (c *curioClient) prove(ctx context.Context, req *cuzkpb.SubmitProofRequest) ([]byte, error) {
	resp, err := c.svc.Prove(ctx, &cuzkpb.ProveRequest{Submit: req})
	if err != nil {
		return nil, fmt.Errorf("cuzk Prove RPC: %w", err)
	}
	if resp.GetResult().GetStatus() != cuzkpb.AwaitProofResponse_COMPLETED {
		return nil, fmt.Errorf("cuzk proof %s: %s", resp.GetResult().GetStatus(), resp.GetResult().GetErrorMessage())
	}
	return resp.GetResult().GetProof(), nil
}

// capacity is Curio's HasCapacity: max pending minus Σ(pending + in_progress).
func (c *curioClient) capacity(ctx context.Context) (int, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	st, err := c.svc.GetStatus(ctx, &cuzkpb.GetStatusRequest{})
	if err != nil {
		return 0, err
	}
	var n uint32
	for _, q := range st.GetQueues() {
		n += q.GetPending() + q.GetInProgress()
	}
	return max(c.maxPending-int(n), 0), nil
}

// startServer serves a fake prover on cfg and returns the address a Curio client dials.
func startServer(t *testing.T, cfg Config, f *fakeProver) (string, *Server) {
	t.Helper()
	s, err := NewServer(cfg, f)
	if err != nil {
		t.Fatal(err)
	}
	l, err := s.Listen()
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- s.Serve(l) }()
	t.Cleanup(func() {
		f.releaseAll()
		s.Stop(time.Second)
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	if strings.HasPrefix(cfg.Listen, "unix:") {
		return cfg.Listen, s
	}
	return l.Addr().String(), s
}

func unixConfig(t *testing.T) Config {
	cfg := DefaultConfig()
	cfg.Listen = "unix://" + filepath.Join(t.TempDir(), "cuzk.sock")
	return cfg
}

func tcpConfig() Config {
	cfg := DefaultConfig()
	cfg.Listen = "127.0.0.1:0"
	return cfg
}

// c1Wrapper is Curio's wrapC1Output: Phase1Out base64 through encoding/json.
func c1Wrapper(t *testing.T, c1 []byte, sector uint64, size uint64) []byte {
	t.Helper()
	b, err := json.Marshal(struct {
		SectorNum  int64
		Phase1Out  []byte
		SectorSize uint64
	}{int64(sector), c1, size})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestCurioFlow(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  func(*testing.T) Config
	}{
		{"unix", unixConfig},
		{"tcp", func(*testing.T) Config { return tcpConfig() }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeProver()
			addr, _ := startServer(t, tc.cfg(t), f)
			c := dialCurio(t, addr, 10)
			ctx := context.Background()
			runCurioFlow(t, ctx, c, f)
		})
	}
}

func runCurioFlow(t *testing.T, ctx context.Context, c *curioClient, f *fakeProver) {
	// PoRep, NORMAL: the C1 JSON arrives unwrapped, with the sector from the request.
	c1 := []byte(`{"registered_proof":"StackedDrg2KiBV1_1"}`)
	proof, err := c.prove(ctx, &cuzkpb.SubmitProofRequest{
		RequestId: "porep-1000-7", ProofKind: cuzkpb.ProofKind_POREP_SEAL_COMMIT, SectorSize: 2048,
		RegisteredProof: uint64(abi.RegisteredSealProof_StackedDrg2KiBV1_1), Priority: cuzkpb.Priority_NORMAL,
		VanillaProof: c1Wrapper(t, c1, 7, 2048), SectorNumber: 7, MinerId: 1000,
	})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(proof, fakeProof(1, c1)) {
		t.Fatalf("porep proof %x is not the fake's proof of the C1 bytes", proof[:8])
	}
	s := f.lastSeal()
	if !bytes.Equal(s.C1, c1) || s.Sector != (abi.SectorID{Miner: 1000, Number: 7}) || s.ProofType != abi.RegisteredSealProof_StackedDrg2KiBV1_1 || !strings.HasPrefix(s.Key, "porep-1000-7#") {
		t.Fatalf("service got %+v", s)
	}

	// Window PoSt, HIGH, partition 2; Winning PoSt, CRITICAL.
	rand := seq(32, 9)
	vps := [][]byte{[]byte("sector-a"), []byte("sector-b")}
	for _, k := range []struct {
		kind      cuzkpb.ProofKind
		prio      cuzkpb.Priority
		reg       abi.RegisteredPoStProof
		partition uint32
	}{
		{cuzkpb.ProofKind_WINDOW_POST_PARTITION, cuzkpb.Priority_HIGH, abi.RegisteredPoStProof_StackedDrgWindow2KiBV1_1, 2},
		{cuzkpb.ProofKind_WINNING_POST, cuzkpb.Priority_CRITICAL, abi.RegisteredPoStProof_StackedDrgWinning2KiBV1, 0},
	} {
		proof, err := c.prove(ctx, &cuzkpb.SubmitProofRequest{
			RequestId: fmt.Sprintf("%s-1000-%x", k.kind, rand[:8]), ProofKind: k.kind, SectorSize: 2048,
			RegisteredProof: uint64(k.reg), Priority: k.prio, VanillaProofs: vps, MinerId: 1000,
			Randomness: rand, PartitionIndex: k.partition,
		})
		if err != nil {
			t.Fatalf("%s: %v", k.kind, err)
		}
		if want := fakeProof(1, append(append([][]byte(nil), vps...), rand)...); !bytes.Equal(proof, want) {
			t.Fatalf("%s: proof is not the fake's proof of the vanilla proofs", k.kind)
		}
		p := f.lastPoSt()
		if p.ProofType != k.reg || p.Miner != 1000 || p.Partition != int(k.partition) || !bytes.Equal(p.Randomness, rand) || len(p.VanillaProofs) != 2 {
			t.Fatalf("%s: service got %+v", k.kind, p)
		}
	}

	// Capacity: three held jobs use three of ten slots; when they finish all ten are free.
	if n, err := c.capacity(ctx); err != nil || n != 10 {
		t.Fatalf("idle capacity %d, %v; want 10", n, err)
	}
	f.mu.Lock()
	f.hold = true
	f.mu.Unlock()
	for i := range 3 {
		resp, err := c.svc.SubmitProof(ctx, &cuzkpb.SubmitProofRequest{
			RequestId: fmt.Sprintf("porep-1000-%d", 100+i), ProofKind: cuzkpb.ProofKind_POREP_SEAL_COMMIT,
			RegisteredProof: uint64(abi.RegisteredSealProof_StackedDrg2KiBV1_1),
			VanillaProof:    c1Wrapper(t, c1, uint64(100+i), 2048), SectorNumber: uint64(100 + i), MinerId: 1000,
		})
		if err != nil {
			t.Fatal(err)
		}
		if resp.GetJobId() != fmt.Sprintf("porep-1000-%d", 100+i) {
			t.Fatalf("job id %q, want the request id", resp.GetJobId())
		}
	}
	if n, err := c.capacity(ctx); err != nil || n != 7 {
		t.Fatalf("capacity with 3 running %d, %v; want 7", n, err)
	}
	f.releaseAll()
	for i := range 3 {
		res, err := c.svc.AwaitProof(ctx, &cuzkpb.AwaitProofRequest{JobId: fmt.Sprintf("porep-1000-%d", 100+i)})
		if err != nil || res.GetStatus() != cuzkpb.AwaitProofResponse_COMPLETED || len(res.GetProof()) != 192 {
			t.Fatalf("await %d: %v %v", i, res, err)
		}
	}
	if n, err := c.capacity(ctx); err != nil || n != 10 {
		t.Fatalf("capacity after completion %d, %v; want 10", n, err)
	}
}

// TestLargePayload sends a Window PoSt partition of 2400 vanilla proofs of 25,600 bytes
// (61.4 MB, the size of a 32 GiB partition of 2349 sectors) through the default limits.
func TestLargePayload(t *testing.T) {
	f := newFakeProver()
	addr, _ := startServer(t, unixConfig(t), f)
	c := dialCurio(t, addr, 10)
	vps := make([][]byte, 2400)
	for i := range vps {
		vps[i] = bytes.Repeat([]byte{byte(i)}, 25600)
	}
	rand := seq(32, 1)
	proof, err := c.prove(context.Background(), &cuzkpb.SubmitProofRequest{
		RequestId: "wdpost-big", ProofKind: cuzkpb.ProofKind_WINDOW_POST_PARTITION,
		RegisteredProof: uint64(abi.RegisteredPoStProof_StackedDrgWindow32GiBV1_1), VanillaProofs: vps, MinerId: 1000, Randomness: rand,
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := fakeProof(1, append(append([][]byte(nil), vps...), rand)...); !bytes.Equal(proof, want) {
		t.Fatal("the service did not receive the 61.4 MB of vanilla proofs intact")
	}
}

// TestRefusedPeer serves through the allowlist filter a loopback connection presented as
// coming from 192.0.2.7 (only loopback exists here): the call fails, the refusal is seen,
// and an allowlisted address of the same kind gets through.
func TestRefusedPeer(t *testing.T) {
	for _, tc := range []struct {
		allow []string
		ok    bool
	}{{nil, false}, {[]string{"192.0.2.0/24"}, true}} {
		t.Run(fmt.Sprint(tc.allow), func(t *testing.T) {
			f := newFakeProver()
			cfg := tcpConfig()
			cfg.Allow = tc.allow
			s, err := NewServer(cfg, f)
			if err != nil {
				t.Fatal(err)
			}
			inner, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			refused := make(chan net.Addr, 4)
			l := &filterListener{Listener: &remoteAddrListener{Listener: inner, addr: &net.TCPAddr{IP: net.IPv4(192, 0, 2, 7), Port: 4000}}, allow: s.ep.allow, refused: func(a net.Addr) {
				select { // never block Accept: the client redials while refused
				case refused <- a:
				default:
				}
			}}
			go func() { _ = s.Serve(l) }()
			t.Cleanup(func() { s.Stop(time.Second) })
			c := dialCurio(t, inner.Addr().String(), 10)
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
			defer cancel()
			_, err = c.capacity(ctx)
			if tc.ok {
				if err != nil {
					t.Fatalf("allowlisted peer refused: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatal("a peer outside the allowlist got an answer")
			}
			select {
			case a := <-refused:
				if a.String() != "192.0.2.7:4000" {
					t.Fatalf("refused %v", a)
				}
			case <-time.After(3 * time.Second):
				t.Fatal("no refusal recorded")
			}
		})
	}
}

// remoteAddrListener presents every accepted connection as coming from addr.
type remoteAddrListener struct {
	net.Listener
	addr net.Addr
}

func (l *remoteAddrListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &remoteAddrConn{Conn: c, addr: l.addr}, nil
}

type remoteAddrConn struct {
	net.Conn
	addr net.Addr
}

func (c *remoteAddrConn) RemoteAddr() net.Addr { return c.addr }
