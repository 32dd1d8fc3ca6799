package main

import (
	"log/slog"
	"net/http"
	"time"

	logging "github.com/ipfs/go-log/v2"

	"github.com/snarkpipe/snarkpipe/rpc"
	"github.com/snarkpipe/snarkpipe/rpc/cuzk"
	"github.com/snarkpipe/snarkpipe/rpc/remotec2"
	"github.com/snarkpipe/snarkpipe/sealer"
)

// This file wires the two foreign-protocol endpoints: Curio's cuzk gRPC service (its own
// listener, off by default) and lotus's RemoteCommit2 hook (a path on the API listener,
// behind the API's tokens).

// withRemoteC2 serves lotus's RemoteCommit2 hook at remotec2.Path next to the API
// handler; tokens are the API's (write permission).
func withRemoteC2(api http.Handler, cfg remotec2.Config, svc *sealer.Service, secret []byte) (http.Handler, error) {
	h, err := remotec2.New(cfg, svc, func(token string) ([]string, error) {
		perms, err := rpc.VerifyToken(secret, token)
		out := make([]string, len(perms))
		for i, p := range perms {
			out[i] = string(p)
		}
		return out, err
	})
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	mux.Handle(remotec2.Path, h)
	mux.Handle("/", api)
	return mux, nil
}

// startCuzk opens the Curio endpoint when it is enabled (nil otherwise).
func startCuzk(cfg cuzk.Config, svc *sealer.Service) (*cuzk.Server, error) {
	if !cfg.Enabled {
		return nil, nil
	}
	s, err := cuzk.NewServer(cfg, svc, cuzk.WithLogger(slog.New(logging.SlogHandler()).With("logger", "snarkpipe/cuzk")))
	if err != nil {
		return nil, err
	}
	l, err := s.Listen()
	if err != nil {
		return nil, err
	}
	go func() {
		if err := s.Serve(l); err != nil {
			log.Errorw("cuzk endpoint stopped", "error", err)
		}
	}()
	return s, nil
}

// stopCuzk closes the Curio endpoint once the service has drained: waiting Prove calls
// have their answers by then and get a moment to send them.
func stopCuzk(s *cuzk.Server) {
	if s != nil {
		s.Stop(10 * time.Second)
	}
}
