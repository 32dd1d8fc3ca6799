package itests

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/snarkpipe/snarkpipe/itests/kit"
)

// The operator's guide (docs/guide) is exercised here where it can run without a GPU:
// its configuration files pass `snarkpipe config check`, every snarkpipe command line in
// its shell blocks and systemd units names an existing command and existing flags, and the
// Curio set-up it describes serves a Curio-style proof that then shows in `status`, in
// /metrics and in the daemon's start lines. The lotus-miner set-up (`worker run` with
// MINER_API_INFO and roles) runs against the kit's simulated lotus-miner; the lotus tests
// (lotus_test.go) drive every role in depth.

// guideDir is docs/guide, seen from this package's directory.
const guideDir = "../docs/guide"

// TestGuideConfigs checks the guide's snarkpipe configurations (every ```toml block that
// has a [cuzk] section, and docs/contrib/snarkpipe.toml) with `snarkpipe config check`, and
// the Curio [Cuzk] blocks against the keys of Curio's CuzkConfig.
func TestGuideConfigs(t *testing.T) {
	bin := kit.Binary(t)
	files := map[string]string{}
	b, err := os.ReadFile("../docs/contrib/snarkpipe.toml")
	if err != nil {
		t.Fatal(err)
	}
	files["docs/contrib/snarkpipe.toml"] = string(b)
	curio := 0
	for page, blocks := range guideBlocks(t, "toml") {
		for i, blk := range blocks {
			switch {
			case strings.HasPrefix(strings.TrimSpace(blk), "[Cuzk]"):
				checkCurioBlock(t, page, blk)
				curio++
			case strings.Contains(blk, "[cuzk]"):
				files[fmt.Sprintf("%s block %d", page, i)] = blk
			}
		}
	}
	if len(files) < 2 || curio == 0 {
		t.Fatalf("found %d snarkpipe configurations and %d Curio sections in the guide; want the Curio page's", len(files), curio)
	}
	for name, text := range files {
		path := filepath.Join(t.TempDir(), "snarkpipe.toml")
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		if out, err := runSnarkpipe(bin, "", "config", "check", path); err != nil || strings.TrimSpace(out) != "ok" {
			t.Errorf("%s: config check: %v\n%s", name, err, out)
		}
	}
}

// checkCurioBlock decodes a [Cuzk] block into the fields of Curio's CuzkConfig
// (deps/config/types.go): no other key, and a duration Curio can parse.
func checkCurioBlock(t *testing.T, page, blk string) {
	t.Helper()
	var c struct {
		Cuzk struct {
			Address      string
			MaxPending   int
			ProveTimeout string
		}
	}
	md, err := toml.Decode(blk, &c)
	if err != nil {
		t.Errorf("%s: Curio block: %v", page, err)
		return
	}
	if und := md.Undecoded(); len(und) > 0 {
		t.Errorf("%s: Curio block has keys CuzkConfig lacks: %v", page, und)
	}
	if _, err := time.ParseDuration(c.Cuzk.ProveTimeout); err != nil || c.Cuzk.Address == "" || c.Cuzk.MaxPending < 1 {
		t.Errorf("%s: Curio block %+v: want Address, MaxPending >= 1 and a duration ProveTimeout (%v)", page, c.Cuzk, err)
	}
}

// TestGuideCommandLines checks that every snarkpipe command in the guide's shell blocks and
// in the systemd units exists and accepts the flags written after it.
func TestGuideCommandLines(t *testing.T) {
	bin := kit.Binary(t)
	var lines []string
	for _, blocks := range guideBlocks(t, "sh") {
		lines = append(lines, blocks...)
	}
	units, err := filepath.Glob("../docs/contrib/systemd/*.service")
	if err != nil || len(units) == 0 {
		t.Fatalf("no systemd units: %v", err)
	}
	for _, u := range units {
		b, err := os.ReadFile(u)
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, string(b))
	}
	checked := 0
	for _, cmd := range snarkpipeCommands(strings.Join(lines, "\n")) {
		out, err := runSnarkpipe(bin, "", append(append([]string{}, cmd.path...), "--help")...)
		if err != nil || !strings.Contains(out, "snarkpipe "+strings.Join(cmd.path, " ")+" - ") {
			t.Errorf("snarkpipe %s: no such command (%v)\n%s", strings.Join(cmd.path, " "), err, out)
			continue
		}
		for _, f := range cmd.flags {
			if !regexp.MustCompile(`(?m)^\s+` + regexp.QuoteMeta(f) + `\b`).MatchString(out) {
				t.Errorf("snarkpipe %s has no flag %s", strings.Join(cmd.path, " "), f)
			}
		}
		checked++
		t.Logf("snarkpipe %s %s", strings.Join(cmd.path, " "), strings.Join(cmd.flags, " "))
	}
	if checked < 8 {
		t.Fatalf("only %d snarkpipe command lines found in the guide", checked)
	}
}

type guideCommand struct {
	path  []string // e.g. ["auth", "create-token"]
	flags []string // e.g. ["--perm", "--config"]
}

var commandWord = regexp.MustCompile(`^[a-z][a-z0-9-]*$`)

// snarkpipeCommands finds the snarkpipe invocations in shell text: comments dropped,
// continuation lines joined, $(…), quotes and pipes split into separate commands, then the
// subcommand words after "snarkpipe" (or a path ending in /snarkpipe) and the --flags
// after them.
func snarkpipeCommands(text string) []guideCommand {
	var kept []string
	for _, line := range strings.Split(text, "\n") {
		if i := strings.Index(line, "#"); i >= 0 && (i == 0 || line[i-1] == ' ' || line[i-1] == '\t') {
			line = line[:i]
		}
		kept = append(kept, line)
	}
	text = strings.ReplaceAll(strings.Join(kept, "\n"), "\\\n", " ")
	text = strings.NewReplacer("$(", "\n", ")", "\n", `"`, "\n", "|", "\n", ";", "\n").Replace(text)
	var out []guideCommand
	for _, line := range strings.Split(text, "\n") {
		f := strings.Fields(line)
		for i, w := range f {
			if w != "snarkpipe" && !strings.HasSuffix(w, "/snarkpipe") {
				continue
			}
			var c guideCommand
			j := i + 1
			for ; j < len(f) && commandWord.MatchString(f[j]) && f[j] != "snarkpipe"; j++ {
				c.path = append(c.path, f[j])
			}
			if len(c.path) == 0 {
				continue // "sudo -u snarkpipe snarkpipe …", "journalctl -u snarkpipe"
			}
			for ; j < len(f); j++ {
				if strings.HasPrefix(f[j], "--") {
					name, _, _ := strings.Cut(f[j], "=")
					c.flags = append(c.flags, name)
				}
			}
			out = append(out, c)
			break
		}
	}
	return out
}

// TestGuideCurio follows docs/guide/curio.md: a daemon with the page's [sealer] and
// [cuzk] sections (the cuzk address moved to a free loopback port, the other listeners
// and paths the kit's) prints the [Cuzk] Address to give Curio, serves a Curio-style
// Winning PoSt through it, and the page's checks show the job: a read token from
// `snarkpipe auth create-token`, `snarkpipe status`, /healthz and /metrics.
func TestGuideCurio(t *testing.T) {
	var daemonBlock string
	for _, blk := range guideBlocks(t, "toml")["curio.md"] {
		if strings.Contains(blk, "[cuzk]") {
			daemonBlock = blk
		}
	}
	if daemonBlock == "" {
		t.Fatal("curio.md has no snarkpipe configuration with a [cuzk] section")
	}
	// The kit writes the top-level keys (loopback listeners on free ports, dev
	// parameters, token secret in the data directory); the page's sections follow.
	_, sections, ok := strings.Cut(daemonBlock, "\n[")
	if !ok {
		t.Fatalf("no sections in %q", daemonBlock)
	}
	sections = "[" + sections
	cuzkAddr := fmt.Sprintf("127.0.0.1:%d", freeTCPPort(t))
	addrLine := regexp.MustCompile(`(?m)^address = "[^"]*"`)
	if !addrLine.MatchString(sections) {
		t.Fatalf("no [cuzk] address line in %q", sections)
	}
	sections = addrLine.ReplaceAllString(sections, fmt.Sprintf("address = %q", cuzkAddr))
	d := kit.StartDaemon(t, kit.DaemonOptions{NoCuzk: true, ExtraConfig: sections})

	// Curio's task.
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	s := kit.Sector2KiB(t, 1)
	rand := randomness(7)
	req := curioWinning(t, s, rand)
	res, err := dialCurio(t, cuzkAddr, 4).prove(ctx, req)
	if err != nil {
		t.Fatalf("Curio-style Prove: %v", err)
	}
	if err := kit.VerifyPoSt(t, winningPoSt2KiB, rand, postSectors(s), 0, res.GetProof()); err != nil {
		t.Fatalf("proof: %v", err)
	}

	// The start lines (all printed once the endpoint has answered) name the address.
	if want := fmt.Sprintf("Curio: set [Cuzk] Address = %q", cuzkAddr); !strings.Contains(d.Log(), want) {
		t.Errorf("start lines lack %q:\n%s", want, d.Log())
	}

	// "Checking that Curio's tasks arrive", 1: status with a read token.
	bin := kit.Binary(t)
	conf := filepath.Join(d.DataDir, "daemon.toml")
	if out, err := runSnarkpipe(bin, "", "status", "--daemon", "http://"+d.Addr); err == nil || !strings.Contains(out, "need 'read'") {
		t.Errorf("status without a token: err %v, want a missing-permission error:\n%s", err, out)
	}
	token, err := runSnarkpipe(bin, "", "auth", "create-token", "--perm", "read", "--config", conf)
	if err != nil {
		t.Fatalf("auth create-token: %v\n%s", err, token)
	}
	out, err := runSnarkpipe(bin, strings.TrimSpace(token), "status", "--daemon", "http://"+d.Addr)
	if err != nil {
		t.Fatalf("status: %v\n%s", err, out)
	}
	if !regexp.MustCompile(`(?m)^winning-post\s+0\s+0\s+1\s+0\s*$`).MatchString(out) ||
		!regexp.MustCompile(`(?m)\sStackedDrgWinning2KiBV1\s+done\s`).MatchString(out) {
		t.Errorf("status does not show one done winning-post job:\n%s", out)
	}

	// 2: /healthz and /metrics.
	maddr := d.MetricsAddr()
	if maddr == "" {
		t.Fatal("no /metrics address in the start lines")
	}
	if body := httpGet(t, "http://"+maddr+"/healthz"); strings.TrimSpace(body) != "ok" {
		t.Errorf("/healthz: %q", body)
	}
	metrics := httpGet(t, "http://"+maddr+"/metrics")
	for _, want := range []string{`snarkpipe_pipeline_jobs_total{kind="winning-post",outcome="ok"} 1`, "snarkpipe_pipeline_queued_partitions 0", "process_resident_memory_bytes"} {
		if !strings.Contains(metrics, want) {
			t.Errorf("/metrics lacks %q", want)
		}
	}
	t.Logf("status after the Curio-style proof:\n%s", out)
}

// TestGuideLotus follows docs/guide/lotus.md against the kit's simulated lotus-miner: the
// page's `snarkpipe worker run` (MINER_API_INFO in the environment, --role, --listen,
// --state-dir) registers the winpost role, which prints its URL and logs its registration;
// the miner's Winning PoSt is proved there, and `snarkpipe status` on the worker's native
// API shows the job.
func TestGuideLotus(t *testing.T) {
	m := kit.StartLotusMiner(t, kit.LotusMinerOptions{})
	dir := t.TempDir()
	d := kit.StartDaemon(t, kit.DaemonOptions{
		Subcommand: []string{"worker", "run"}, DataDir: dir, NoCuzk: true,
		Env: []string{"MINER_API_INFO=" + m.APIInfo()},
		Args: []string{"--role", "winpost", "--listen", fmt.Sprintf("127.0.0.1:%d", freeTCPPort(t)),
			"--state-dir", filepath.Join(dir, "lotus-worker")},
	})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if err := m.WaitWorkers(ctx, "winning"); err != nil {
		t.Fatal(err)
	}
	if u := d.RoleURL("winpost"); !strings.HasSuffix(u, "/winpost/rpc/v0") {
		t.Errorf("winpost role URL %q", u)
	}
	s := kit.Sector2KiB(t, 13)
	m.AddSectors(s)
	proofs, err := m.WinningPoSt(ctx, t, winningPoSt2KiB, lotusRandomness(9), s)
	if err != nil || len(proofs) != 1 || len(proofs[0].ProofBytes) != 192 {
		t.Fatalf("winning PoSt through the worker: %v (%d proofs)", err, len(proofs))
	}
	if !strings.Contains(d.Log(), "registered with the miner") {
		t.Errorf("no registration line in the worker's log:\n%s", d.Log())
	}
	bin := kit.Binary(t)
	token, err := runSnarkpipe(bin, "", "auth", "create-token", "--perm", "read", "--config", filepath.Join(dir, "daemon.toml"))
	if err != nil {
		t.Fatalf("auth create-token: %v\n%s", err, token)
	}
	out, err := runSnarkpipe(bin, strings.TrimSpace(token), "status", "--daemon", "http://"+d.Addr)
	if err != nil || !regexp.MustCompile(`(?m)^winning-post\s+0\s+0\s+1\s+0\s*$`).MatchString(out) {
		t.Errorf("status on the worker (%v) does not show one done winning-post job:\n%s", err, out)
	}
}

// guideBlocks returns the fenced code blocks of one language of every guide page, by page.
func guideBlocks(t *testing.T, lang string) map[string][]string {
	t.Helper()
	pages, err := filepath.Glob(filepath.Join(guideDir, "*.md"))
	if err != nil || len(pages) == 0 {
		t.Fatalf("no guide pages in %s: %v", guideDir, err)
	}
	fence := regexp.MustCompile("(?ms)^\\s*```" + lang + "\\n(.*?)^\\s*```")
	out := map[string][]string{}
	for _, p := range pages {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range fence.FindAllStringSubmatch(string(b), -1) {
			out[filepath.Base(p)] = append(out[filepath.Base(p)], m[1])
		}
	}
	return out
}

// runSnarkpipe runs the binary with SNARKPIPE_API_TOKEN set to token (unset when empty)
// and returns its combined output.
func runSnarkpipe(bin, token string, args ...string) (string, error) {
	cmd := exec.Command(bin, args...)
	for _, e := range os.Environ() {
		if !strings.HasPrefix(e, "SNARKPIPE_API_TOKEN=") {
			cmd.Env = append(cmd.Env, e)
		}
	}
	if token != "" {
		cmd.Env = append(cmd.Env, "SNARKPIPE_API_TOKEN="+token)
	}
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	err := cmd.Run()
	return buf.String(), err
}

func httpGet(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// freeTCPPort is a loopback TCP port free right now.
func freeTCPPort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}
