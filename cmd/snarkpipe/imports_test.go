package main

import (
	"os/exec"
	"strings"
	"testing"
)

// TestImportRules enforces DESIGN.md's import rules on the whole module, so a violation
// fails CI instead of eroding the layering.
func TestImportRules(t *testing.T) {
	const mod = "github.com/snarkpipe/snarkpipe/"
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", mod+"...").Output()
	if err != nil {
		t.Skipf("go list unavailable: %v", err)
	}
	under := func(pkg, prefix string) bool { return pkg == prefix || strings.HasPrefix(pkg, prefix+"/") }
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		pkg := strings.TrimPrefix(fields[0], mod)
		for _, imp := range fields[1:] {
			if !strings.HasPrefix(imp, mod) {
				continue
			}
			dep := strings.TrimPrefix(imp, mod)
			var broken string
			switch {
			case under(pkg, "types") && !under(dep, "types"):
				broken = "types imports nothing of ours but types"
			case pkg == "types" && dep != "types":
				broken = "types imports nothing of ours"
			case under(pkg, "prover") && (under(dep, "sealer") || under(dep, "rpc") || under(dep, "types/vanilla")):
				broken = "prover never imports sealer, rpc or types/vanilla"
			case dep == "cuda" && pkg != "prover/backend/gpu":
				broken = "only prover/backend/gpu imports cuda"
			case under(dep, "rpc") && !under(pkg, "rpc") && !under(pkg, "cmd") && !under(pkg, "itests"):
				broken = "only cmd and itests import rpc"
			case pkg == "rpc/api" && !under(dep, "types"):
				broken = "rpc/api imports only types"
			}
			if broken != "" {
				t.Errorf("%s imports %s: %s", pkg, dep, broken)
			}
		}
	}
}
