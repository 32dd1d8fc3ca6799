package main

import (
	"regexp"
	"strings"
	"testing"
)

// TestConfigDefaultEveryKeyCommented: every key of `config default` has exactly one
// comment line above it, no comment repeats its section's name, every documented key is
// printed, and no value depends on the machine the default was printed on.
func TestConfigDefaultEveryKeyCommented(t *testing.T) {
	s, err := commentedDefault()
	if err != nil {
		t.Fatal(err)
	}
	keyLine := regexp.MustCompile(`^\s*([a-z0-9_]+) = `)
	lines := strings.Split(s, "\n")
	section, seen := "", map[string]bool{}
	for i, line := range lines {
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "[") {
			section = strings.Trim(trimmed, "[]")
			continue
		}
		m := keyLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		name := m[1]
		if section != "" {
			name = section + "." + m[1]
		}
		seen[name] = true
		if i == 0 || !strings.HasPrefix(strings.TrimSpace(lines[i-1]), "#") {
			t.Errorf("%s has no comment", name)
			continue
		}
		if i >= 2 && strings.HasPrefix(strings.TrimSpace(lines[i-2]), "#") {
			t.Errorf("%s has more than one comment line", name)
		}
		if section != "" && strings.Contains(lines[i-1], "["+section+"]") {
			t.Errorf("comment of %s repeats its section: %s", name, lines[i-1])
		}
	}
	for k := range configComments {
		if !seen[k] {
			t.Errorf("configComments documents %q, which config default does not print", k)
		}
	}
	if want := "synthesis_workers = 0"; !strings.Contains(s, want) {
		t.Errorf("config default lacks %q (a machine-dependent default is written as 0 = automatic)", want)
	}
}
