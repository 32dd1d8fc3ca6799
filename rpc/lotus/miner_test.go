package lotus_test

import (
	"strings"
	"testing"

	"github.com/snarkpipe/snarkpipe/rpc/lotus"
)

func TestParseAPIInfo(t *testing.T) {
	for _, tc := range []struct{ in, token, url string }{
		{"tok:/ip4/127.0.0.1/tcp/2345/http", "tok", "http://127.0.0.1:2345/rpc/v0"},
		{"tok:/ip4/10.0.0.5/tcp/2345", "tok", "http://10.0.0.5:2345/rpc/v0"},
		{"tok:/ip6/::1/tcp/2345/http", "tok", "http://[::1]:2345/rpc/v0"},
		{"tok:/dns/miner.lan/tcp/2345/https", "tok", "https://miner.lan:2345/rpc/v0"},
		{"tok:/dns4/miner/tcp/1/ws", "tok", "ws://miner:1/rpc/v0"},
		{"eyJhbGciOiJIUzI1NiJ9.e30.sig:http://h:2345/rpc/v0", "eyJhbGciOiJIUzI1NiJ9.e30.sig", "http://h:2345/rpc/v0"},
	} {
		got, err := lotus.ParseAPIInfo(tc.in)
		if err != nil || got.Token != tc.token || got.URL != tc.url {
			t.Errorf("ParseAPIInfo(%q) = %+v, %v; want %s %s", tc.in, got, err, tc.token, tc.url)
		}
		if h := got.AuthHeader().Get("Authorization"); h != "Bearer "+tc.token {
			t.Errorf("%q: header %q", tc.in, h)
		}
	}
	for _, bad := range []string{"", "tok", ":/ip4/1.2.3.4/tcp/1", "tok:", "tok:/ip4/1.2.3.4", "tok:/tcp/1", "tok:/ip4/1.2.3.4/udp/1", "tok:/ip4//tcp/1", "tok:/ip4/1.2.3.4/tcp"} {
		if got, err := lotus.ParseAPIInfo(bad); err == nil {
			t.Errorf("ParseAPIInfo(%q) = %+v, want an error", bad, got)
		}
	}
}

// FuzzParseAPIInfo: any input parses or is refused, never panics; what parses names a URL.
func FuzzParseAPIInfo(f *testing.F) {
	for _, s := range []string{"tok:/ip4/127.0.0.1/tcp/2345/http", "tok:http://h:1/rpc/v0", "a:/dns6/x/tcp/9/wss", "t:/ip4/1/tcp/"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		info, err := lotus.ParseAPIInfo(s)
		if err != nil {
			return
		}
		if info.Token == "" || !(strings.HasPrefix(info.URL, "http") || strings.HasPrefix(info.URL, "ws")) {
			t.Fatalf("ParseAPIInfo(%q) = %+v", s, info)
		}
	})
}

func TestConfigValidate(t *testing.T) {
	if err := lotus.DefaultConfig().Validate(); err != nil {
		t.Fatal(err)
	}
	bad := lotus.DefaultConfig()
	bad.Roles = []lotus.Role{"c2", "c2", "pc1"}
	bad.PoStParallelReads = 0
	bad.HeartbeatInterval = 0
	err := bad.Validate()
	for _, want := range []string{"listed twice", `unknown role "pc1"`, "post_parallel_reads", "heartbeat_interval"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Validate: %v, want it to mention %q", err, want)
		}
	}
	roles, err := lotus.ParseRoles("c2, wdpost,winpost")
	if err != nil || len(roles) != 3 || roles[1] != lotus.RoleWindow {
		t.Fatalf("ParseRoles: %v, %v", roles, err)
	}
	for _, bad := range []string{"", "c2,c2", "c2,pc2"} {
		if _, err := lotus.ParseRoles(bad); err == nil {
			t.Errorf("ParseRoles(%q) accepted", bad)
		}
	}
}
