// Package golden reads and writes the golden files of the circuit-count tests: one line per
// named circuit ("name key=value ..."), comment lines starting with '#'.
package golden

import (
	"bufio"
	"errors"
	"os"
	"sort"
	"strings"
)

// Read returns the lines of path keyed by their first word. A missing file reads as empty
// when allowMissing (a first -update run).
func Read(path string, allowMissing bool) (map[string]string, error) {
	out := map[string]string{}
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) && allowMissing {
		return out, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		name, _, _ := strings.Cut(line, " ")
		out[name] = line
	}
	return out, sc.Err()
}

// Write writes the header as comment lines, then the lines sorted by name.
func Write(path string, header []string, lines map[string]string) error {
	names := make([]string, 0, len(lines))
	for n := range lines {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	for _, h := range header {
		b.WriteString("# " + h + "\n")
	}
	for _, n := range names {
		b.WriteString(lines[n] + "\n")
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}
