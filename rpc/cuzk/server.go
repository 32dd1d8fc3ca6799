package cuzk

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/peer"
	"google.golang.org/grpc/status"

	"github.com/snarkpipe/snarkpipe/rpc/cuzk/cuzkpb"
)

// Server is the cuzk-compatible gRPC endpoint over a Prover.
type Server struct {
	cfg  Config
	ep   endpoint
	log  *slog.Logger
	grpc *grpc.Server
	eng  *engine

	stopOnce sync.Once
}

// Option adjusts a Server.
type Option func(*Server)

// WithLogger logs refused peers and failed jobs (default: no logging).
func WithLogger(l *slog.Logger) Option { return func(s *Server) { s.log = l } }

// NewServer builds the endpoint; cfg must validate. It does not listen yet.
func NewServer(cfg Config, svc Prover, opts ...Option) (*Server, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if svc == nil {
		return nil, errors.New("cuzk: nil Prover")
	}
	ep, _ := cfg.endpoint() // checked by Validate
	s := &Server{cfg: cfg, ep: ep, log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	for _, o := range opts {
		o(s)
	}
	s.eng = newEngine(svc, cfg.JobIDs, s.log)
	s.grpc = grpc.NewServer(
		grpc.MaxRecvMsgSize(cfg.MaxMessageBytes),
		grpc.MaxSendMsgSize(cfg.MaxMessageBytes),
		grpc.UnaryInterceptor(s.checkPeer),
	)
	cuzkpb.RegisterProvingEngineServer(s.grpc, s.eng)
	return s, nil
}

// Listen opens the configured address: the unix socket with its mode, or TCP with the
// allowlist applied to every accepted connection.
func (s *Server) Listen() (net.Listener, error) {
	return listen(s.ep, s.cfg.SocketMode, s.refused)
}

// Serve answers on l until Stop; it returns nil after Stop.
func (s *Server) Serve(l net.Listener) error {
	err := s.grpc.Serve(l)
	if errors.Is(err, grpc.ErrServerStopped) {
		return nil
	}
	return err
}

// ListenAndServe listens and serves until ctx ends, then stops: in-flight calls get
// grace to finish, after which they are cut (their jobs keep running in the service).
func (s *Server) ListenAndServe(ctx context.Context, grace time.Duration) error {
	l, err := s.Listen()
	if err != nil {
		return err
	}
	done := make(chan error, 1)
	go func() { done <- s.Serve(l) }()
	select {
	case err := <-done:
		s.Stop(0)
		return err
	case <-ctx.Done():
	}
	s.Stop(grace)
	return <-done
}

// Stop ends the endpoint: it waits up to grace for in-flight calls, then closes every
// connection. The listener is closed (a unix socket file is removed).
func (s *Server) Stop(grace time.Duration) {
	s.stopOnce.Do(func() {
		finished := make(chan struct{})
		go func() { s.grpc.GracefulStop(); close(finished) }()
		select {
		case <-finished:
		case <-time.After(grace):
			s.grpc.Stop()
			<-finished
		}
		s.eng.stopWatchers()
	})
}

// checkPeer refuses calls from peers outside the allowlist, for listeners that did not
// come from Listen (Serve accepts any net.Listener).
func (s *Server) checkPeer(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	p, ok := peer.FromContext(ctx)
	if !ok || !peerAllowed(p.Addr, s.ep.allow) {
		var addr net.Addr
		if ok {
			addr = p.Addr
		}
		s.refused(addr)
		return nil, status.Error(codes.PermissionDenied, "cuzk: peer not in the allowlist")
	}
	return handler(ctx, req)
}

func (s *Server) refused(addr net.Addr) {
	s.log.Warn("cuzk: refused connection from a peer outside the allowlist", "peer", addr)
}
