package main

import (
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
)

// proofTypeEntry is one proof type's availability, from the service or from status.
type proofTypeEntry struct {
	name, kind, reason string
	servable           bool
}

// kindTitles name the proof kinds in summaries, in the order they are printed.
var kindTitles = []struct{ kind, title string }{
	{"seal", "SealCommit2"}, {"winning", "Winning PoSt"}, {"window", "Window PoSt"}, {"update", "SnapDeals"},
}

var sectorSizeInName = regexp.MustCompile(`\d+(KiB|MiB|GiB)`)

// missingFile matches the reason of a proof type whose parameter file is missing.
var missingFile = regexp.MustCompile(`^missing \S+ in (.+)$`)

// reasonGroup merges reasons that differ only by file name, so that a daemon without
// parameters says so once rather than once per file.
func reasonGroup(reason string) string {
	if m := missingFile.FindStringSubmatch(reason); m != nil {
		return "parameter files missing in " + m[1] + "; snarkpipe params lists them"
	}
	return reason
}

// printServable writes what a daemon serves in a few short lines: per kind the sector
// sizes, and per reason what is not served. The 21 upstream names on one line told an
// operator nothing at a glance; status --json lists them.
func printServable(w io.Writer, indent string, entries []proofTypeEntry) {
	served, n := sizesByKind(entries, func(e proofTypeEntry) bool { return e.servable })
	fmt.Fprintf(w, "%sserves %d proof types: %s\n", indent, n, served)
	var reasons []string
	for _, e := range entries {
		if r := reasonGroup(e.reason); !e.servable && !slices.Contains(reasons, r) {
			reasons = append(reasons, r)
		}
	}
	for _, r := range reasons {
		not, _ := sizesByKind(entries, func(e proofTypeEntry) bool { return !e.servable && reasonGroup(e.reason) == r })
		fmt.Fprintf(w, "%snot served (%s): %s\n", indent, r, not)
	}
}

// sizesByKind summarises the entries keep selects as "Kind sizes; Kind sizes".
func sizesByKind(entries []proofTypeEntry, keep func(proofTypeEntry) bool) (string, int) {
	var parts []string
	n := 0
	for _, k := range kindTitles {
		var sizes []string
		for _, e := range entries {
			if e.kind != k.kind || !keep(e) {
				continue
			}
			n++
			if s := sectorSizeInName.FindString(e.name); s != "" && !slices.Contains(sizes, s) {
				sizes = append(sizes, s)
			}
		}
		if len(sizes) > 0 {
			parts = append(parts, k.title+" "+strings.Join(sizes, " "))
		}
	}
	if len(parts) == 0 {
		return "none", 0
	}
	return strings.Join(parts, "; "), n
}
