package lotus

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"

	"github.com/filecoin-project/go-jsonrpc"
	"github.com/filecoin-project/go-jsonrpc/auth"
	"github.com/filecoin-project/go-state-types/abi"
	"github.com/filecoin-project/lotus/storage/sealer/storiface"
	"github.com/google/uuid"
)

// MinerClient is the part of lotus-miner's API (api.StorageMiner, namespace "Filecoin") a
// worker calls. Field names are the lotus method names; go-jsonrpc fills the fields.
type MinerClient struct {
	Version           func(ctx context.Context) (APIVersion, error)
	Session           func(ctx context.Context) (uuid.UUID, error)
	WorkerConnect     func(ctx context.Context, url string) error
	AuthVerify        func(ctx context.Context, token string) ([]auth.Permission, error)
	ReturnSealCommit2 func(ctx context.Context, callID storiface.CallID, proof storiface.Proof, err *storiface.CallError) error
	// ReturnProveReplicaUpdate2 reports a SnapDeals proof (api.StorageMiner, retry:true).
	ReturnProveReplicaUpdate2 func(ctx context.Context, callID storiface.CallID, proof storiface.ReplicaUpdateProof, err *storiface.CallError) error
	StorageFindSector         func(ctx context.Context, sector abi.SectorID, ft storiface.SectorFileType, ssize abi.SectorSize, allowFetch bool) ([]storiface.SectorStorageInfo, error)
}

// APIInfo is a parsed MINER_API_INFO ("TOKEN:MULTIADDR").
type APIInfo struct {
	Token string
	// URL is the miner's JSON-RPC endpoint, e.g. http://127.0.0.1:2345/rpc/v0.
	URL string
}

// AuthHeader is the header lotus sends with its token.
func (a APIInfo) AuthHeader() http.Header {
	h := http.Header{}
	if a.Token != "" {
		h.Set("Authorization", "Bearer "+a.Token)
	}
	return h
}

// ParseAPIInfo parses lotus' "TOKEN:/ip4/127.0.0.1/tcp/2345/http" form. The address may
// also be a URL ("TOKEN:http://host:2345/rpc/v0"); a multiaddr without /http or /ws means
// http. Supported multiaddr protocols: ip4, ip6, dns, dns4, dns6, tcp, http, https, ws, wss.
func ParseAPIInfo(s string) (APIInfo, error) {
	token, addr, ok := strings.Cut(s, ":")
	if !ok || token == "" || addr == "" {
		return APIInfo{}, errors.New("lotus: api info is not TOKEN:ADDRESS")
	}
	if strings.HasPrefix(addr, "http://") || strings.HasPrefix(addr, "https://") || strings.HasPrefix(addr, "ws://") || strings.HasPrefix(addr, "wss://") {
		return APIInfo{Token: token, URL: addr}, nil
	}
	u, err := multiaddrURL(addr)
	if err != nil {
		return APIInfo{}, err
	}
	return APIInfo{Token: token, URL: u + "/rpc/v0"}, nil
}

// multiaddrURL turns /ip4/H/tcp/P[/http] into http://H:P.
func multiaddrURL(ma string) (string, error) {
	parts := strings.Split(strings.TrimPrefix(ma, "/"), "/")
	var host, port string
	scheme := "http"
	for i := 0; i < len(parts); i++ {
		p := parts[i]
		switch p {
		case "ip4", "ip6", "dns", "dns4", "dns6", "tcp":
			if i+1 >= len(parts) || parts[i+1] == "" {
				return "", fmt.Errorf("lotus: multiaddr %q: %s without a value", ma, p)
			}
			if p == "tcp" {
				port = parts[i+1]
			} else {
				host = parts[i+1]
			}
			i++
		case "http", "https", "ws", "wss":
			scheme = p
		default:
			return "", fmt.Errorf("lotus: multiaddr %q: unsupported protocol %q", ma, p)
		}
	}
	if host == "" || port == "" {
		return "", fmt.Errorf("lotus: multiaddr %q lacks a host or a tcp port", ma)
	}
	return scheme + "://" + net.JoinHostPort(host, port), nil
}

// DialMiner connects a MinerClient over HTTP (one POST per call, as lotus-worker does).
func DialMiner(ctx context.Context, info APIInfo) (*MinerClient, jsonrpc.ClientCloser, error) {
	var c MinerClient
	closer, err := jsonrpc.NewMergeClient(ctx, info.URL, "Filecoin", []any{&c}, info.AuthHeader())
	if err != nil {
		return nil, nil, fmt.Errorf("lotus: miner client %s: %w", info.URL, err)
	}
	return &c, closer, nil
}
