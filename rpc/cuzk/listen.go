package cuzk

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// peerAllowed says whether a connection from addr may use the endpoint: unix socket peers
// always (the socket's file mode decides who can connect), TCP peers when they are
// loopback or inside an allowlisted prefix. Anything else, including an address that
// cannot be parsed, is refused.
func peerAllowed(addr net.Addr, allow []netip.Prefix) bool {
	switch a := addr.(type) {
	case *net.UnixAddr:
		return true
	case *net.TCPAddr:
		ip, ok := netip.AddrFromSlice(a.IP)
		return ok && ipAllowed(ip, allow)
	case nil:
		return false
	}
	if addr.Network() == "unix" {
		return true
	}
	ap, err := netip.ParseAddrPort(addr.String())
	return err == nil && ipAllowed(ap.Addr(), allow)
}

func ipAllowed(ip netip.Addr, allow []netip.Prefix) bool {
	ip = ip.Unmap()
	if ip.IsLoopback() {
		return true
	}
	for _, p := range allow {
		if p.Contains(ip) {
			return true
		}
	}
	return false
}

// filterListener closes connections from peers that are not allowed before gRPC sees a
// byte of them. Refusals never surface as Accept errors, which would stop grpc.Serve.
type filterListener struct {
	net.Listener
	allow   []netip.Prefix
	refused func(net.Addr)
}

func (l *filterListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		if peerAllowed(c.RemoteAddr(), l.allow) {
			return c, nil
		}
		if l.refused != nil {
			l.refused(c.RemoteAddr())
		}
		_ = c.Close()
	}
}

// listen opens the configured endpoint. A unix socket is created under a temporary name,
// given its mode and then renamed into place, so that it is never reachable with the
// umask's looser default; a stale socket left by a dead daemon is replaced, a live one is
// an error.
func listen(ep endpoint, mode os.FileMode, refused func(net.Addr)) (net.Listener, error) {
	if ep.network == "tcp" {
		l, err := net.Listen("tcp", ep.address)
		if err != nil {
			return nil, fmt.Errorf("cuzk: %w", err)
		}
		return &filterListener{Listener: l, allow: ep.allow, refused: refused}, nil
	}
	return listenUnix(ep.address, mode)
}

func listenUnix(path string, mode os.FileMode) (net.Listener, error) {
	if fi, err := os.Stat(filepath.Dir(path)); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("cuzk: socket directory %s must exist as a directory (the daemon does not create it)", filepath.Dir(path))
	}
	if err := removeStaleSocket(path); err != nil {
		return nil, err
	}
	tmp := filepath.Join(filepath.Dir(path), fmt.Sprintf(".%s.%d.tmp", filepath.Base(path), os.Getpid()))
	_ = os.Remove(tmp)
	l, err := net.ListenUnix("unix", &net.UnixAddr{Name: tmp, Net: "unix"})
	if err != nil {
		return nil, fmt.Errorf("cuzk: %w", err)
	}
	l.SetUnlinkOnClose(false)
	if err := os.Chmod(tmp, mode); err != nil {
		_ = l.Close()
		_ = os.Remove(tmp)
		return nil, fmt.Errorf("cuzk: socket mode: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		_ = l.Close()
		_ = os.Remove(tmp)
		return nil, fmt.Errorf("cuzk: %w", err)
	}
	return &unixListener{UnixListener: l, path: path}, nil
}

// removeStaleSocket removes a socket file nobody answers on.
func removeStaleSocket(path string) error {
	fi, err := os.Lstat(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("cuzk: %w", err)
	}
	if fi.Mode()&os.ModeSocket == 0 {
		return fmt.Errorf("cuzk: %s exists and is not a socket", path)
	}
	if c, err := net.DialTimeout("unix", path, time.Second); err == nil {
		_ = c.Close()
		return fmt.Errorf("cuzk: %s is in use by another process", path)
	}
	if err := os.Remove(path); err != nil {
		return fmt.Errorf("cuzk: removing stale socket: %w", err)
	}
	return nil
}

// unixListener removes its socket file when closed (it was renamed, so net's own
// unlink-on-close would miss it).
type unixListener struct {
	*net.UnixListener
	path string
	once sync.Once
}

func (l *unixListener) Close() error {
	err := l.UnixListener.Close()
	l.once.Do(func() { _ = os.Remove(l.path) })
	return err
}
