package cuzk

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"strings"
)

// MinMessageBytes is the smallest accepted message limit: Curio's client sends and receives
// up to 256 MiB (a 32 GiB C1 wrapper is ~68 MB, a Window PoSt vanilla set of 2349 sectors
// ~59 MB).
const MinMessageBytes = 256 << 20

// maxMessageBytes is what gRPC's int32-sized length prefix allows.
const maxMessageBytes = 1<<31 - 1

// Config configures the cuzk-compatible gRPC endpoint. Curio's client sends no
// credentials, so reachability is the access control: by default the endpoint is a unix
// socket only its owner can open; a TCP address must be loopback unless Allow lists the
// peers that may connect.
type Config struct {
	// Enabled starts the endpoint in the daemon.
	Enabled bool `toml:"enabled"`
	// Listen is "host:port", "unix:///abs/path.sock" or "unix:relative/path.sock", the
	// value to put in Curio's [Cuzk] Address (TOML key "address", as there). The default
	// is the address Curio's documentation uses for a cuzk daemon.
	Listen string `toml:"address"`
	// SocketMode is the unix socket's file mode (default 0600: only the daemon's user).
	SocketMode os.FileMode `toml:"socket_mode"`
	// Allow lists the peers (IP addresses or CIDR prefixes) allowed to connect over
	// TCP besides loopback. It is required when Listen is not a loopback address.
	Allow []string `toml:"allow"`
	// MaxMessageBytes bounds requests and responses, at least MinMessageBytes.
	MaxMessageBytes int `toml:"max_message_bytes"`
	// JobIDs is how many request_id → job mappings the adapter remembers for
	// AwaitProof and CancelProof (the service forgets finished jobs on its own schedule).
	JobIDs int `toml:"job_ids"`
}

// DefaultAddress is where Curio's documentation tells [Cuzk] Address to find a cuzk
// daemon: a loopback TCP port, reachable only from the machine itself.
const DefaultAddress = "127.0.0.1:9820"

// DefaultConfig is off, and when turned on listens where Curio's documentation expects
// a cuzk daemon (loopback only).
func DefaultConfig() Config {
	return Config{
		Listen:          DefaultAddress,
		SocketMode:      0o600,
		MaxMessageBytes: MinMessageBytes,
		JobIDs:          4096,
	}
}

// Validate checks the configuration, including that a non-loopback TCP address comes with
// an allowlist.
func (c Config) Validate() error {
	var errs []error
	if _, err := c.endpoint(); err != nil {
		errs = append(errs, err)
	}
	if c.SocketMode&^0o777 != 0 {
		errs = append(errs, fmt.Errorf("cuzk: socket_mode %o has bits beyond 0777", c.SocketMode))
	}
	if c.MaxMessageBytes < MinMessageBytes || c.MaxMessageBytes > maxMessageBytes {
		errs = append(errs, fmt.Errorf("cuzk: max_message_bytes %d outside [%d, %d]", c.MaxMessageBytes, MinMessageBytes, maxMessageBytes))
	}
	if c.JobIDs < 1 {
		errs = append(errs, fmt.Errorf("cuzk: job_ids %d < 1", c.JobIDs))
	}
	return errors.Join(errs...)
}

// endpoint is a parsed Listen address with its allowlist.
type endpoint struct {
	network string // "unix" or "tcp"
	address string // socket path or host:port
	allow   []netip.Prefix
}

func (c Config) endpoint() (endpoint, error) {
	if path, ok, err := unixPath(c.Listen); ok {
		if err != nil {
			return endpoint{}, err
		}
		if path == "" {
			return endpoint{}, fmt.Errorf("cuzk: address %q: empty socket path", c.Listen)
		}
		if len(c.Allow) > 0 {
			return endpoint{}, errors.New("cuzk: allow applies to TCP listeners only; a unix socket is guarded by its file mode")
		}
		return endpoint{network: "unix", address: path}, nil
	}
	host, _, err := net.SplitHostPort(c.Listen)
	if err != nil {
		return endpoint{}, fmt.Errorf("cuzk: address %q: want unix:///path or host:port: %v", c.Listen, err)
	}
	allow, err := parseAllow(c.Allow)
	if err != nil {
		return endpoint{}, err
	}
	if !isLoopbackHost(host) && len(allow) == 0 {
		return endpoint{}, fmt.Errorf("cuzk: address %q is not loopback: Curio's client sends no credentials, so list the allowed peers in allow", c.Listen)
	}
	return endpoint{network: "tcp", address: c.Listen, allow: allow}, nil
}

// unixPath recognises the unix socket forms Curio's gRPC client can dial: "unix:///abs"
// and "unix:path" (relative, or "unix:/abs"). "unix://x/..." is refused: gRPC reads x as
// the URL's authority, and its unix resolver rejects a non-empty authority, so Curio
// could never connect to the socket the daemon opened.
func unixPath(listen string) (path string, isUnix bool, err error) {
	rest, ok := strings.CutPrefix(listen, "unix:")
	if !ok {
		return "", false, nil
	}
	after, ok := strings.CutPrefix(rest, "//")
	if !ok {
		return rest, true, nil
	}
	if after != "" && !strings.HasPrefix(after, "/") {
		return "", true, &AddressError{Address: listen, Reason: fmt.Sprintf(
			"%q is read as the authority of a unix:// URL, which Curio's gRPC client refuses; "+
				"write unix:///absolute/path or unix:%s (relative to the daemon's working directory)", strings.SplitN(after, "/", 2)[0], after)}
	}
	return after, true, nil
}

// AddressError is an address that Curio could not dial.
type AddressError struct {
	Address, Reason string
}

func (e *AddressError) Error() string {
	return fmt.Sprintf("cuzk: address %q: %s", e.Address, e.Reason)
}

// isLoopbackHost accepts "localhost" and loopback IP literals. An empty host or an
// unspecified address (0.0.0.0, ::) listens on every interface and is not loopback.
func isLoopbackHost(host string) bool {
	if host == "localhost" {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.IsLoopback()
}

func parseAllow(list []string) ([]netip.Prefix, error) {
	out := make([]netip.Prefix, 0, len(list))
	for _, s := range list {
		if p, err := netip.ParsePrefix(s); err == nil {
			out = append(out, p.Masked())
			continue
		}
		ip, err := netip.ParseAddr(s)
		if err != nil {
			return nil, fmt.Errorf("cuzk: allow entry %q is neither an IP address nor a CIDR prefix", s)
		}
		ip = ip.Unmap()
		out = append(out, netip.PrefixFrom(ip, ip.BitLen()))
	}
	return out, nil
}
