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
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/snarkpipe/snarkpipe/itests/kit"
)

// The operator's guide (docs/guide) is exercised here where it can run without a GPU:
// its configuration files pass `snarkpipe config check`, every snarkpipe command line in
// its shell blocks and systemd units names an existing command and existing flags, every
// configuration key it names exists, the README's first run works as written (the daemon
// prints the start lines the page shows, `status` finds it without flags), and the Curio
// set-up it describes serves a Curio-style proof that then shows in `status` (found
// through state_dir), in /metrics and in the log lines the page shows. The lotus-miner
// set-up (`worker run` with MINER_API_INFO and roles) runs against the kit's simulated
// lotus-miner; the lotus tests (lotus_test.go) drive every role in depth.
//
// Output the pages quote (start lines, log lines) is compared line by line after
// normalizeOutput: addresses, paths, session ids, timestamps and values differ between a
// production host and a test, the words and fields must not.

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
// and paths the kit's) prints the start lines the page shows, with the [Cuzk] Address to
// give Curio, serves a Curio-style Winning PoSt through it, and the page's checks show the
// job: `snarkpipe status --config` (the page's configuration sets state_dir), status from
// another user with a read token from `snarkpipe auth create-token`, the job's log lines
// as the page quotes them, /healthz and /metrics.
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
	// The page's `status --config` relies on state_dir in its configuration (the kit sets
	// its own state_dir, the data directory, below).
	var top struct {
		StateDir string `toml:"state_dir"`
	}
	if _, err := toml.Decode(daemonBlock, &top); err != nil || top.StateDir == "" {
		t.Errorf("curio.md's configuration sets no state_dir (%v), but the page runs status with only --config", err)
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

	// The start lines (all printed once the endpoint has answered) name the address, and
	// are the lines the page shows.
	if want := fmt.Sprintf("Curio (cuzk)      %s: in Curio's config, [Cuzk] Address = %q", cuzkAddr, cuzkAddr); !strings.Contains(d.Log(), want) {
		t.Errorf("start lines lack %q:\n%s", want, d.Log())
	}
	checkQuotedOutput(t, "curio.md", "snarkpipe daemon: ", d.Log(), skipServable)

	// "Checking that Curio's tasks arrive", 1: status with the daemon's configuration
	// finds it (api file and read token in state_dir)...
	bin := kit.Binary(t)
	conf := filepath.Join(d.DataDir, "daemon.toml")
	out, err := runSnarkpipe(bin, "", "status", "--config", conf)
	if err != nil {
		t.Fatalf("status --config: %v\n%s", err, out)
	}
	if !regexp.MustCompile(`(?m)^winning-post\s+0\s+0\s+1\s+0\s*$`).MatchString(out) ||
		!regexp.MustCompile(`(?m)\sStackedDrgWinning2KiBV1\s+done\s`).MatchString(out) {
		t.Errorf("status does not show one done winning-post job:\n%s", out)
	}
	// ... and from another user: an address without a token is refused with the command
	// that makes one; a read token from `auth create-token` is enough.
	if out, err := runSnarkpipe(bin, "", "status", "--daemon", "http://"+d.Addr); err == nil || !strings.Contains(out, "need 'read'") ||
		!strings.Contains(out, "snarkpipe auth create-token --perm read") {
		t.Errorf("status without a token: err %v, want a missing-permission error naming auth create-token:\n%s", err, out)
	}
	token, err := runSnarkpipe(bin, "", "auth", "create-token", "--perm", "read", "--config", conf)
	if err != nil {
		t.Fatalf("auth create-token: %v\n%s", err, token)
	}
	if out, err := runSnarkpipe(bin, strings.TrimSpace(token), "status", "--daemon", "http://"+d.Addr); err != nil ||
		!regexp.MustCompile(`(?m)^winning-post\s+0\s+0\s+1\s+0\s*$`).MatchString(out) {
		t.Errorf("status --daemon with a read token (%v) does not show the job:\n%s", err, out)
	}

	// 4: the job's log lines, as the page shows them.
	checkQuotedOutput(t, "curio.md", "job started", waitLog(t, d, "job done"), nil)

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
// the miner's Winning PoSt is proved there and logged (job started, job done), the start
// lines are those the page shows (for the role it runs), and `snarkpipe status --config`
// finds the worker through its state_dir and shows the job.
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
	// The start lines the page shows (the roles this worker runs), and the job in the log.
	checkQuotedOutput(t, "lotus.md", "snarkpipe worker: ", d.Log(), func(line string) bool {
		if skipServable(line) {
			return true
		}
		role, ok := strings.CutPrefix(line, "role ")
		return ok && !strings.HasPrefix(role, "winpost ")
	})
	log := waitLog(t, d, "job done")
	for _, want := range []string{`job started	{"job": "winning-post-1", "sector": "miner 1000 sector 13"`, `job done	{"job": "winning-post-1"`} {
		if !strings.Contains(log, want) {
			t.Errorf("the worker's log lacks %q:\n%s", want, log)
		}
	}
	// status with the worker's configuration finds it through state_dir, as the daemon.
	out, err := runSnarkpipe(kit.Binary(t), "", "status", "--config", filepath.Join(dir, "daemon.toml"))
	if err != nil || !regexp.MustCompile(`(?m)^winning-post\s+0\s+0\s+1\s+0\s*$`).MatchString(out) {
		t.Errorf("status on the worker (%v) does not show one done winning-post job:\n%s", err, out)
	}
}

// TestGuideQuickStart runs the README's "First run" as written, on the CPU and without
// parameter files, in a fresh home directory: the default configuration from `config
// default` passes `config check`, `params list` runs, the daemon prints the start lines
// the page shows, and `status` with no flag finds it through the api file in the default
// state directory. Only the two fixed ports are moved to free ones (other tests and
// daemons may hold 9830 and 9821).
func TestGuideQuickStart(t *testing.T) {
	bin := kit.Binary(t)
	home := t.TempDir()
	env := []string{"HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"), "XDG_CACHE_HOME=" + filepath.Join(home, ".cache"),
		"FIL_PROOFS_PARAMETER_CACHE=" + filepath.Join(home, "params")}
	run := func(args ...string) string {
		t.Helper()
		out, err := runSnarkpipeEnv(bin, env, args...)
		if err != nil {
			t.Fatalf("snarkpipe %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return out
	}
	conf := filepath.Join(home, "snarkpipe.toml")
	def := run("config", "default")
	listen := regexp.MustCompile(`(?m)^(listen|metrics_listen) = "127\.0\.0\.1:(9830|9821)"$`)
	if n := len(listen.FindAllString(def, -1)); n != 2 {
		t.Fatalf("config default: want listen 127.0.0.1:9830 and metrics_listen 127.0.0.1:9821, found %d of them:\n%s", n, def)
	}
	def = listen.ReplaceAllString(def, `$1 = "127.0.0.1:0"`)
	if err := os.WriteFile(conf, []byte(def), 0o600); err != nil {
		t.Fatal(err)
	}
	if out := run("config", "check", conf); strings.TrimSpace(out) != "ok" {
		t.Fatalf("config check: %q", out)
	}
	run("params", "list")

	cmd := exec.Command(bin, "daemon", "--config", conf, "--backend", "cpu")
	cmd.Env = append(os.Environ(), env...)
	var buf syncBuffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	defer func() {
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(30 * time.Second):
			cmd.Process.Kill()
			<-exited
		}
		if _, err := os.Stat(filepath.Join(home, ".config", "snarkpipe", "api")); !os.IsNotExist(err) {
			t.Errorf("the api file outlived the daemon (%v)", err)
		}
		if t.Failed() {
			t.Logf("daemon output:\n%s", buf.String())
		}
	}()
	for deadline := time.Now().Add(time.Minute); !strings.Contains(buf.String(), "  local clients "); time.Sleep(20 * time.Millisecond) {
		select {
		case err := <-exited:
			t.Fatalf("daemon exited: %v\n%s", err, buf.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("no start lines after a minute:\n%s", buf.String())
		}
	}
	out := run("status")
	if !strings.Contains(out, "serves 0 proof types: none") || !strings.Contains(out, "\nqueue ") {
		t.Errorf("status without flags:\n%s", out)
	}
	// The start lines are written at once: all there by the time status has answered.
	checkQuotedOutput(t, "README.md", "snarkpipe daemon: ", buf.String(), nil)
}

// TestGuideConfigKeys checks that every configuration key the guide names as `[section]
// key` or `key = value` is one `config default` prints (the toml blocks are checked whole
// by TestGuideConfigs).
func TestGuideConfigKeys(t *testing.T) {
	out, err := runSnarkpipe(kit.Binary(t), "", "config", "default")
	if err != nil {
		t.Fatalf("config default: %v\n%s", err, out)
	}
	known := map[string]bool{}
	section := ""
	for _, line := range strings.Split(out, "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "[") {
			section = strings.Trim(line, "[]")
		} else if k, _, ok := strings.Cut(line, " = "); ok && !strings.HasPrefix(line, "#") {
			known["["+section+"] "+k] = true
		}
	}
	sectionKey := regexp.MustCompile("`\\[([a-z_0-9]+)\\] ([a-z_0-9]+)(?:`| =)")
	assignment := regexp.MustCompile("`([a-z_0-9]+) = (\"[^\"`]*\"|[0-9.]+|true|false|\\[[^`]*\\])`")
	checked := 0
	for page, text := range guidePages(t) {
		for _, m := range sectionKey.FindAllStringSubmatch(text, -1) {
			if !known["["+m[1]+"] "+m[2]] {
				t.Errorf("%s: no configuration key [%s] %s", page, m[1], m[2])
			}
			checked++
		}
		for _, m := range assignment.FindAllStringSubmatch(text, -1) {
			found := false
			for k := range known {
				found = found || strings.HasSuffix(k, "] "+m[1])
			}
			if !found {
				t.Errorf("%s: no configuration key %s", page, m[1])
			}
			checked++
		}
	}
	if checked < 20 {
		t.Fatalf("only %d configuration keys found in the guide", checked)
	}
	t.Logf("%d mentions of configuration keys checked", checked)
}

// guidePages returns the text of every guide page, by file name.
func guidePages(t *testing.T) map[string]string {
	t.Helper()
	pages, err := filepath.Glob(filepath.Join(guideDir, "*.md"))
	if err != nil || len(pages) == 0 {
		t.Fatalf("no guide pages in %s: %v", guideDir, err)
	}
	out := map[string]string{}
	for _, p := range pages {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		out[filepath.Base(p)] = string(b)
	}
	return out
}

// guideBlocks returns the fenced code blocks of one language ("" for blocks without one,
// such as quoted output) of every guide page, by page, with the fence's indentation removed.
func guideBlocks(t *testing.T, lang string) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for page, text := range guidePages(t) {
		var blk []string
		in, indent, blkLang := false, "", ""
		for _, line := range strings.Split(text, "\n") {
			trimmed := strings.TrimSpace(line)
			if !in {
				if rest, ok := strings.CutPrefix(trimmed, "```"); ok {
					in, blkLang, blk = true, rest, nil
					indent = line[:len(line)-len(strings.TrimLeft(line, " "))]
				}
				continue
			}
			if trimmed == "```" {
				if blkLang == lang {
					out[page] = append(out[page], strings.Join(blk, "\n")+"\n")
				}
				in = false
				continue
			}
			blk = append(blk, strings.TrimPrefix(line, indent))
		}
	}
	return out
}

// checkQuotedOutput finds the block of page whose first line contains first (output the
// page quotes) and checks that each of its lines, normalized, is a line of out: a line
// ending in "…" is a prefix. The block's first line is not compared when first ends in
// ": " (a daemon's or worker's first start line names the backend and the parameters, which
// differ between the page's GPU host and the test); skip leaves other lines out.
func checkQuotedOutput(t *testing.T, page, first, out string, skip func(line string) bool) {
	t.Helper()
	var quoted string
	for _, blk := range guideBlocks(t, "")[page] {
		if line, _, _ := strings.Cut(blk, "\n"); strings.Contains(line, first) {
			quoted = blk
		}
	}
	if quoted == "" {
		t.Errorf("%s quotes no output starting with %q", page, first)
		return
	}
	var have []string
	for _, line := range strings.Split(out, "\n") {
		have = append(have, normalizeOutput(line))
	}
	lines := strings.Split(strings.TrimRight(quoted, "\n"), "\n")
	if strings.HasSuffix(first, ": ") {
		if !strings.HasPrefix(out, first) && !strings.Contains(out, "\n"+first) {
			t.Errorf("%s: the output has no line starting with %q:\n%s", page, first, out)
		}
		lines = lines[1:]
	}
	for _, line := range lines {
		if skip != nil && skip(strings.TrimSpace(line)) {
			continue
		}
		want := normalizeOutput(line)
		prefix := strings.HasSuffix(want, "…")
		want = strings.TrimSuffix(want, "…")
		found := false
		for _, h := range have {
			found = found || h == want || (prefix && strings.HasPrefix(h, want))
		}
		if !found {
			t.Errorf("%s quotes a line the output lacks:\n  page:       %s\n  normalized: %s\noutput:\n%s", page, line, want, out)
		}
	}
}

// skipServable leaves out the start lines that list proof types, which depend on the
// parameter files and the backend.
func skipServable(line string) bool {
	return strings.HasPrefix(line, "serves ") || strings.HasPrefix(line, "not served ")
}

var (
	outTimestamp = regexp.MustCompile(`^\d{4}-\d\d-\d\dT[0-9:.]+Z\t`)
	outCaller    = regexp.MustCompile(`\t[a-z0-9_/]+\.go:\d+\t`)
	outValue     = regexp.MustCompile(`("[a-z_]+": )("[^"]*"|[0-9.]+)`)
	outSession   = regexp.MustCompile(`\(session [0-9a-f-]+…?,`)
	outAddr      = regexp.MustCompile(`\b\d+\.\d+\.\d+\.\d+:\d+\b`)
	outPath      = regexp.MustCompile(`(^|[\s(])/[^\s)"',;]+`) // a file path, not a URL's
)

// normalizeOutput replaces in one output line what differs between hosts and runs:
// timestamps, the caller of a log line, the values of its fields, session ids,
// addresses and paths.
func normalizeOutput(line string) string {
	line = outTimestamp.ReplaceAllString(strings.TrimSpace(line), "")
	line = outCaller.ReplaceAllString(line, "\tCALLER\t")
	line = outValue.ReplaceAllString(line, "${1}V")
	line = outSession.ReplaceAllString(line, "(session S,")
	line = outAddr.ReplaceAllString(line, "ADDR")
	return strings.Join(strings.Fields(outPath.ReplaceAllString(line, "${1}PATH")), " ")
}

// waitLog waits (up to 10 s) for a daemon's output to contain want, and returns it: the
// job log's last line is written after the caller got its result.
func waitLog(t *testing.T, d *kit.Daemon, want string) string {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if log := d.Log(); strings.Contains(log, want) {
			return log
		}
	}
	t.Errorf("no %q in the output within 10 s", want)
	return d.Log()
}

// runSnarkpipe runs the binary with SNARKPIPE_API_TOKEN set to token (unset when empty)
// and returns its combined output.
func runSnarkpipe(bin, token string, args ...string) (string, error) {
	var env []string
	if token != "" {
		env = []string{"SNARKPIPE_API_TOKEN=" + token}
	}
	return runSnarkpipeEnv(bin, env, args...)
}

// runSnarkpipeEnv runs the binary with env added to the environment (SNARKPIPE_API_TOKEN
// unset unless env sets it) and returns its combined output.
func runSnarkpipeEnv(bin string, env []string, args ...string) (string, error) {
	cmd := exec.Command(bin, args...)
	for _, e := range os.Environ() {
		if !strings.HasPrefix(e, "SNARKPIPE_API_TOKEN=") {
			cmd.Env = append(cmd.Env, e)
		}
	}
	cmd.Env = append(cmd.Env, env...)
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

// syncBuffer is a bytes.Buffer written by a process's stdout and stderr and read by the test.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
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
