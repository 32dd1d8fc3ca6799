package kit

import (
	"context"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/BurntSushi/toml"
	"github.com/filecoin-project/go-state-types/abi"

	"github.com/snarkpipe/snarkpipe/sealer"
	"github.com/snarkpipe/snarkpipe/types"
	"github.com/snarkpipe/snarkpipe/types/vanilla"
)

func TestParseBytes(t *testing.T) {
	for in, want := range map[string]int64{"2GiB": 2 << 30, "512MiB": 512 << 20, "64KiB": 64 << 10, "1000": 1000, "7B": 7, " 3 GiB ": 3 << 30} {
		got, err := parseBytes(in)
		if err != nil || got != want {
			t.Errorf("parseBytes(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "GiB", "-1GiB", "0", "1TiB", "1.5GiB", "99999999999GiB"} {
		if got, err := parseBytes(in); err == nil {
			t.Errorf("parseBytes(%q) = %d, want an error", in, got)
		}
	}
}

// TestDaemonTOML checks that the configuration is TOML with the values the daemon reads.
func TestDaemonTOML(t *testing.T) {
	c := daemonTOML{devParamDir: "/c/dev", recordingsDir: "/c/rec", secret: "/d/s", hostBudget: 3 << 30, synthWorkers: 2, cuzkSocket: "/d/cuzk.sock"}
	var got struct {
		Listen        string `toml:"listen"`
		MetricsListen string `toml:"metrics_listen"`
		Dev           bool   `toml:"dev"`
		DevParamDir   string `toml:"dev_param_dir"`
		Backend       string `toml:"backend"`
		Pipeline      struct {
			HostBudget       int64 `toml:"host_budget"`
			SynthesisWorkers int   `toml:"synthesis_workers"`
		} `toml:"pipeline"`
		Cuzk struct {
			Enabled bool   `toml:"enabled"`
			Address string `toml:"address"`
		} `toml:"cuzk"`
	}
	if _, err := toml.Decode(c.render(), &got); err != nil {
		t.Fatal(err)
	}
	if got.Listen != "127.0.0.1:0" || got.MetricsListen != "127.0.0.1:0" || !got.Dev || got.DevParamDir != "/c/dev" || got.Backend != "auto" ||
		got.Pipeline.HostBudget != 3<<30 || got.Pipeline.SynthesisWorkers != 2 || !got.Cuzk.Enabled || got.Cuzk.Address != "unix:///d/cuzk.sock" {
		t.Fatalf("decoded %+v", got)
	}
	c.cuzkSocket, c.synthWorkers = "", 0
	if strings.Contains(c.render(), "[cuzk]") {
		t.Fatal("cuzk section without a socket")
	}
	if strings.Contains(c.render(), "synthesis_workers") {
		t.Fatal("SynthesisWorkers written without being set (the daemon's default must apply)")
	}
}

// TestProcessScan checks the ready and role lines the kit reads from the daemon's output,
// including lines split across writes.
func TestProcessScan(t *testing.T) {
	p := &process{log: nil, ready: make(chan struct{}), roles: map[string]string{}}
	p.log = mustTemp(t)
	out := "snarkpipe worker: native API http://127.0.0.1:41235/rpc/v0, backend cpu, dev parameters\n" +
		"  serves 3 proof types: a b c\n  role c2      http://127.0.0.1:3456/c2/rpc/v0 (session 1, task seal/v0/commit/2)\n" +
		"  role wdpost  http://127.0.0.1:3456/wdpost/rpc/v0 (session 2, task post/v0/windowproof)\n"
	for i := 0; i < len(out); i += 7 {
		p.Write([]byte(out[i:min(i+7, len(out))]))
	}
	select {
	case <-p.ready:
	default:
		t.Fatal("API line not recognised")
	}
	if p.apiAddr != "127.0.0.1:41235" || p.role("c2") != "http://127.0.0.1:3456/c2/rpc/v0" || p.role("wdpost") != "http://127.0.0.1:3456/wdpost/rpc/v0" || p.role("winpost") != "" {
		t.Fatalf("api %q roles %v", p.apiAddr, p.roles)
	}
	d := &process{ready: make(chan struct{}), roles: map[string]string{}, log: mustTemp(t)}
	d.Write([]byte("snarkpipe daemon: backend cpu, dev parameters\n  JSON-RPC API      http://[::1]:9/rpc/v0 (listen)\n  health, metrics   http://127.0.0.1:10/healthz, /metrics (metrics_listen)\n"))
	if d.apiAddr != "[::1]:9" || d.metricsAddr() != "127.0.0.1:10" {
		t.Fatalf("daemon lines: api %q metrics %q", d.apiAddr, d.metricsAddr())
	}
}

// TestFixturePoSt checks that the fixture's vanilla proofs pass native verification for
// the challenges the kit derives (so a simulated miner and its storage agree), Window at
// a non-zero partition too (sector index 2 is partition 1's first slot).
func TestFixturePoSt(t *testing.T) {
	rnd := make([]byte, 32)
	for i := range rnd {
		rnd[i] = byte(0xf0 + i)
	}
	for _, c := range []struct {
		ppt   abi.RegisteredPoStProof
		index int
	}{{abi.RegisteredPoStProof_StackedDrgWinning2KiBV1, 0}, {abi.RegisteredPoStProof_StackedDrgWindow2KiBV1_1, 2}} {
		s := Sector2KiB(t, 7)
		b, err := s.Vanilla(c.ppt, rnd, c.index)
		if err != nil {
			t.Fatal(err)
		}
		v, err := vanilla.DecodePoStSectorProof(b)
		if err != nil {
			t.Fatal(err)
		}
		info, _ := types.PoStProof(c.ppt)
		err = sealer.VerifyPoSt(&sealer.PoStPublic{Proof: info, Randomness: rnd, Sectors: []sealer.PoStSector{{Number: s.ID.Number, CommR: s.CommR}}, Partition: c.index / info.SectorsPerPartition}, []*vanilla.FallbackPoStSectorProof{v})
		if err != nil {
			t.Fatalf("%v: %v", c.ppt, err)
		}
		ch, err := s.Challenges(c.ppt, rnd, c.index)
		if err != nil || len(ch) != info.ChallengesPerSector {
			t.Fatalf("challenges %v, %v", ch, err)
		}
	}
	if a, b := Sector2KiB(t, 1), Sector2KiB(t, 2); a.CommR == b.CommR || Fixture2KiB(t) != a {
		t.Fatal("fixture sectors are not distinct or not cached")
	}
}

// TestStartDaemon starts the binary, reads its bound port, calls the API with the admin
// token, reaches the cuzk socket, and restarts it on the same data directory.
func TestStartDaemon(t *testing.T) {
	d := StartDaemon(t, DaemonOptions{HostMemory: "2GiB"})
	st, err := d.Client(t).Status(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if st == nil {
		t.Fatal("no status")
	}
	resp, err := http.Get("http://" + d.MetricsAddr() + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("/healthz: HTTP %d", resp.StatusCode)
	}
	if !strings.HasPrefix(d.CuzkAddr, "unix://"+d.DataDir) {
		t.Fatalf("cuzk address %q", d.CuzkAddr)
	}
	conn, err := net.Dial("unix", strings.TrimPrefix(d.CuzkAddr, "unix://"))
	if err != nil {
		t.Fatalf("cuzk socket: %v", err)
	}
	conn.Close()
	token := d.Token
	d.Kill()
	if d.Running() {
		t.Fatal("running after Kill")
	}
	d.Restart(t)
	if d.Token != token {
		t.Fatal("token changed across restart")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := d.Client(t).Status(ctx); err != nil {
		t.Fatalf("after restart: %v", err)
	}
}

func mustTemp(t *testing.T) *os.File {
	f, err := os.CreateTemp(t.TempDir(), "log")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// FuzzParseBytes: any input gives a positive size or an error, never a panic, and a
// plain positive count reads back as itself.
func FuzzParseBytes(f *testing.F) {
	for _, s := range []string{"2GiB", "512MiB", "1", "0", "-3KiB", "9223372036854775807", "4611686018427387904B", "GiB"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := parseBytes(s)
		if err == nil && n <= 0 {
			t.Fatalf("parseBytes(%q) = %d without an error", s, n)
		}
		if v, perr := strconv.ParseInt(strings.TrimSpace(s), 10, 64); perr == nil && v > 0 && v <= 1<<62 && (err != nil || n != v) {
			t.Fatalf("parseBytes(%q) = %d, %v; want %d", s, n, err, v)
		}
	})
}
