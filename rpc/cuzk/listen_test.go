package cuzk

import (
	"errors"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestConfigValidate(t *testing.T) {
	for _, tc := range []struct {
		name   string
		edit   func(*Config)
		errHas string // "" = valid
	}{
		{"default", func(*Config) {}, ""},
		{"unix short form", func(c *Config) { c.Listen = "unix:/tmp/x.sock" }, ""},
		{"loopback v4", func(c *Config) { c.Listen = "127.0.0.1:9820" }, ""},
		{"loopback v6", func(c *Config) { c.Listen = "[::1]:9820" }, ""},
		{"localhost", func(c *Config) { c.Listen = "localhost:9820" }, ""},
		{"all interfaces without allowlist", func(c *Config) { c.Listen = "0.0.0.0:9820" }, "not loopback"},
		{"empty host without allowlist", func(c *Config) { c.Listen = ":9820" }, "not loopback"},
		{"v6 any without allowlist", func(c *Config) { c.Listen = "[::]:9820" }, "not loopback"},
		{"lan address without allowlist", func(c *Config) { c.Listen = "10.1.2.3:9820" }, "not loopback"},
		{"all interfaces with allowlist", func(c *Config) { c.Listen = "0.0.0.0:9820"; c.Allow = []string{"10.0.0.0/8", "192.168.1.5"} }, ""},
		{"bad allow entry", func(c *Config) { c.Listen = "0.0.0.0:9820"; c.Allow = []string{"10.0.0.0/33"} }, "neither an IP"},
		{"allow on a unix socket", func(c *Config) { c.Listen = "unix:///tmp/x.sock"; c.Allow = []string{"10.0.0.0/8"} }, "TCP listeners only"},
		{"unix absolute", func(c *Config) { c.Listen = "unix:///run/snarkpipe/cuzk.sock" }, ""},
		{"unix relative", func(c *Config) { c.Listen = "unix:cuzk.sock" }, ""},
		{"unix relative with an authority", func(c *Config) { c.Listen = "unix://cuzk.sock" }, "Curio's gRPC client refuses"},
		{"unix relative dir with an authority", func(c *Config) { c.Listen = "unix://run/cuzk.sock" }, "unix:run/cuzk.sock"},
		{"no port", func(c *Config) { c.Listen = "127.0.0.1" }, "want unix:///path or host:port"},
		{"empty socket path", func(c *Config) { c.Listen = "unix://" }, "empty socket path"},
		{"message limit below Curio's", func(c *Config) { c.MaxMessageBytes = 64 << 20 }, "max_message_bytes"},
		{"socket mode bits", func(c *Config) { c.SocketMode = 0o4600 }, "socket_mode"},
		{"job ids", func(c *Config) { c.JobIDs = 0 }, "job_ids"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := DefaultConfig()
			tc.edit(&c)
			err := c.Validate()
			switch {
			case tc.errHas == "" && err != nil:
				t.Fatalf("want valid, got %v", err)
			case tc.errHas != "" && (err == nil || !strings.Contains(err.Error(), tc.errHas)):
				t.Fatalf("want error containing %q, got %v", tc.errHas, err)
			}
		})
	}
	if _, err := NewServer(Config{Listen: "0.0.0.0:1", MaxMessageBytes: MinMessageBytes, JobIDs: 1}, newFakeProver()); err == nil {
		t.Fatal("NewServer accepted an invalid config")
	}
}

func TestPeerAllowed(t *testing.T) {
	allow, err := parseAllow([]string{"10.0.0.0/8", "192.0.2.9", "2001:db8::/32"})
	if err != nil {
		t.Fatal(err)
	}
	tcp := func(ip string) net.Addr { return &net.TCPAddr{IP: net.ParseIP(ip), Port: 5000} }
	for _, tc := range []struct {
		addr      net.Addr
		none, lst bool // allowed with no allowlist, with the list above
	}{
		{tcp("127.0.0.1"), true, true},
		{tcp("127.8.9.10"), true, true},
		{tcp("::1"), true, true},
		{tcp("::ffff:127.0.0.1"), true, true},
		{tcp("10.200.0.1"), false, true},
		{tcp("::ffff:10.200.0.1"), false, true},
		{tcp("11.0.0.1"), false, false},
		{tcp("192.0.2.9"), false, true},
		{tcp("192.0.2.10"), false, false},
		{tcp("2001:db8::7"), false, true},
		{tcp("2001:db9::7"), false, false},
		{tcp("0.0.0.0"), false, false},
		{&net.TCPAddr{}, false, false},
		{&net.UnixAddr{Name: "/run/x.sock", Net: "unix"}, true, true},
		{nil, false, false},
		{fakeAddr{"tcp", "10.0.0.1:80"}, false, true},
		{fakeAddr{"tcp", "garbage"}, false, false},
		{fakeAddr{"unix", "@"}, true, true},
	} {
		if got := peerAllowed(tc.addr, nil); got != tc.none {
			t.Errorf("%v without allowlist: %v, want %v", tc.addr, got, tc.none)
		}
		if got := peerAllowed(tc.addr, allow); got != tc.lst {
			t.Errorf("%v with allowlist: %v, want %v", tc.addr, got, tc.lst)
		}
	}
}

type fakeAddr struct{ network, s string }

func (a fakeAddr) Network() string { return a.network }
func (a fakeAddr) String() string  { return a.s }

// TestFilterListener: refused connections are closed and reported, Accept moves on to
// the next connection instead of failing (an Accept error would end grpc.Serve).
func TestFilterListener(t *testing.T) {
	conns := []*stubConn{
		{remote: &net.TCPAddr{IP: net.ParseIP("203.0.113.1"), Port: 1}},
		{remote: &net.TCPAddr{IP: net.ParseIP("203.0.113.2"), Port: 2}},
		{remote: &net.TCPAddr{IP: net.ParseIP("10.1.1.1"), Port: 3}},
	}
	var refused []string
	allow := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}
	l := &filterListener{Listener: &stubListener{conns: conns}, allow: allow, refused: func(a net.Addr) { refused = append(refused, a.String()) }}
	c, err := l.Accept()
	if err != nil {
		t.Fatal(err)
	}
	if c != conns[2] || conns[2].closed {
		t.Fatalf("accepted %v (closed %v), want the allowlisted connection open", c.RemoteAddr(), conns[2].closed)
	}
	if !conns[0].closed || !conns[1].closed || len(refused) != 2 || refused[0] != "203.0.113.1:1" {
		t.Fatalf("refused %v, closed %v %v", refused, conns[0].closed, conns[1].closed)
	}
	if _, err := l.Accept(); !errors.Is(err, net.ErrClosed) {
		t.Fatalf("after the last connection: %v", err)
	}
}

type stubListener struct{ conns []*stubConn }

func (l *stubListener) Accept() (net.Conn, error) {
	if len(l.conns) == 0 {
		return nil, net.ErrClosed
	}
	c := l.conns[0]
	l.conns = l.conns[1:]
	return c, nil
}
func (l *stubListener) Close() error   { return nil }
func (l *stubListener) Addr() net.Addr { return &net.TCPAddr{} }

type stubConn struct {
	net.Conn
	remote net.Addr
	closed bool
}

func (c *stubConn) RemoteAddr() net.Addr { return c.remote }
func (c *stubConn) Close() error         { c.closed = true; return nil }

func TestUnixSocket(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "cuzk.sock")
	ep := endpoint{network: "unix", address: path}

	l, err := listen(ep, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode()&os.ModeSocket == 0 || fi.Mode().Perm() != 0o600 {
		t.Fatalf("socket mode %v, want a socket with 0600", fi.Mode())
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".*tmp")); len(left) != 0 {
		t.Fatalf("temporary names left behind: %v", left)
	}

	// A live socket is not taken over.
	if _, err := listen(ep, 0o600, nil); err == nil || !strings.Contains(err.Error(), "in use") {
		t.Fatalf("second listener on a live socket: %v", err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(path); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("socket file left after Close: %v", err)
	}

	// A stale socket (nobody listening) is replaced.
	stale, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	stale.SetUnlinkOnClose(false)
	_ = stale.Close()
	l, err = listen(ep, 0o660, nil)
	if err != nil {
		t.Fatalf("stale socket not replaced: %v", err)
	}
	if fi, _ := os.Lstat(path); fi.Mode().Perm() != 0o660 {
		t.Fatalf("mode %v, want 0660", fi.Mode().Perm())
	}
	_ = l.Close()

	if _, err := listen(endpoint{network: "unix", address: filepath.Join(dir, "missing", "x.sock")}, 0o600, nil); err == nil || !strings.Contains(err.Error(), "must exist") {
		t.Fatalf("socket in a missing directory: %v", err)
	}

	// A regular file is never removed.
	if err := os.WriteFile(path, []byte("keep"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := listen(ep, 0o600, nil); err == nil || !strings.Contains(err.Error(), "not a socket") {
		t.Fatalf("listening over a regular file: %v", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "keep" {
		t.Fatal("regular file was touched")
	}
}
