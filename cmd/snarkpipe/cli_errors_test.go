package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// runCaptured runs the CLI with its output captured.
func runCaptured(t *testing.T, args ...string) (string, error) {
	t.Helper()
	app := newApp()
	var out bytes.Buffer
	app.Writer, app.ErrWriter = &out, &out
	err := app.RunContext(context.Background(), append([]string{"snarkpipe"}, args...))
	return out.String(), err
}

// TestWrongFlagOneError: a wrong flag is one error naming the nearest flag and the help,
// with no help text printed around it.
func TestWrongFlagOneError(t *testing.T) {
	out, err := runCaptured(t, "status", "--jsn")
	if err == nil {
		t.Fatal("no error")
	}
	if out != "" {
		t.Errorf("printed besides the error:\n%s", out)
	}
	for _, want := range []string{"-jsn", "did you mean --json?", "'snarkpipe status --help'"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
}

// TestMisspeltCommandSuggests: a misspelt command or subcommand names the right one.
func TestMisspeltCommandSuggests(t *testing.T) {
	for args, want := range map[string]string{"daemn": "'snarkpipe daemon'", "verfy": "'snarkpipe verify'", "prove windw": "'snarkpipe prove window'"} {
		_, err := runCaptured(t, strings.Fields(args)...)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: want a suggestion of %s, got %v", args, want, err)
		}
	}
}

// TestUsageHasNoBackticks: urfave/cli reads a backquoted word in a flag's usage as the
// placeholder name; a quoted command there garbles the help line.
func TestUsageHasNoBackticks(t *testing.T) {
	for _, args := range [][]string{{"daemon", "--help"}, {"worker", "run", "--help"}, {"prove", "c2", "--help"}, {"status", "--help"}} {
		out, err := runCaptured(t, args...)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(out, "--config snarkpipe") || strings.Contains(out, "--miner-api-info lotus-miner") {
			t.Errorf("%v: garbled placeholder:\n%s", args, out)
		}
	}
}

// TestVersion prints the version, the commit and what the CUDA library sees.
func TestVersion(t *testing.T) {
	out, err := runCaptured(t, "--version")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "snarkpipe 0.") || !strings.Contains(out, "commit ") || !strings.Contains(out, "CUDA library: ") {
		t.Fatalf("--version:\n%s", out)
	}
}

// TestMissingRequiredFlagOneError: a missing required flag is one error naming it, with
// no help text, every time (the commands are shared by every run).
func TestMissingRequiredFlagOneError(t *testing.T) {
	for range 2 {
		out, err := runCaptured(t, "prove", "winning", "--out", "x", "--randomness", "00")
		if err == nil || !strings.Contains(err.Error(), "missing --post-proof, --vanilla; see 'snarkpipe prove winning --help'") || out != "" {
			t.Fatalf("error %v, output %q", err, out)
		}
	}
	t.Setenv("MINER_API_INFO", "not-an-api-info")
	if _, err := runCaptured(t, "worker", "run", "--state-dir", t.TempDir()); err == nil || strings.Contains(err.Error(), "missing --miner-api-info") {
		t.Fatalf("the environment variable does not stand for the flag: %v", err)
	}
}
