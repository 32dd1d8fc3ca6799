package groth16

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func tpUpstream(t *testing.T, name string) string {
	path := filepath.Join("..", "..", "..", "shared", "testdata", "upstream", name)
	if _, err := os.Stat(path); err != nil {
		t.Skipf("upstream fixture %s absent (%v)", name, err)
	}
	return path
}

// The upstream README records the parameters.json-style digest of one fixture file.
func TestDigestOfKnownFile(t *testing.T) {
	path := tpUpstream(t, "seal_regression_records-v18.json")
	const want = "03bb3d5c2f3b2b2bbc1aaeaf9afd7a0c"
	got, err := FileDigest(path)
	if err != nil || got != want {
		t.Fatalf("FileDigest = %q, %v; want %s", got, err, want)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	d := NewDigestWriter()
	d.Write(raw[:1000])
	d.Write(raw[1000:])
	if d.Digest() != want {
		t.Fatalf("DigestWriter = %s, want %s", d.Digest(), want)
	}
	if Digest(raw) != want {
		t.Fatalf("Digest(bytes) = %s, want %s", Digest(raw), want)
	}
	if !isDigestString(strings.ToUpper(want)) || isDigestString(want[:31]) || isDigestString(want[:31]+"g") {
		t.Fatal("isDigestString misjudges")
	}
}

// Every digest in parameters.json has the form Digest produces.
func TestParametersJSONDigestsHaveOurForm(t *testing.T) {
	raw, err := os.ReadFile(tpUpstream(t, "parameters.json"))
	if err != nil {
		t.Fatal(err)
	}
	var table map[string]struct {
		Digest string `json:"digest"`
	}
	if err := json.Unmarshal(raw, &table); err != nil {
		t.Fatal(err)
	}
	lower := regexp.MustCompile(`^[0-9a-f]{32}$`)
	params := 0
	for name, e := range table {
		if !lower.MatchString(e.Digest) || !isDigestString(e.Digest) {
			t.Errorf("%s: digest %q is not 32 lowercase hex characters", name, e.Digest)
		}
		if strings.HasSuffix(name, ".params") {
			params++
		}
	}
	if params == 0 {
		t.Fatal("no .params entries in parameters.json")
	}
	if len(Digest(nil)) != DigestLen {
		t.Fatal("Digest length")
	}
}
