package srs

import (
	"os"
	"sync"
	"sync/atomic"
	"testing"
)

func TestDirCacheBuildsOnce(t *testing.T) {
	c := DirCache{Dir: t.TempDir()}
	var builds atomic.Int32
	var wg sync.WaitGroup
	paths := make([]string, 8)
	for i := range paths {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p, err := c.GetOrBuild("entry", func(tmp string) error {
				builds.Add(1)
				return os.WriteFile(tmp, []byte("built"), 0o644)
			})
			if err != nil {
				t.Error(err)
			}
			paths[i] = p
		}()
	}
	wg.Wait()
	if builds.Load() != 1 {
		t.Fatalf("built %d times", builds.Load())
	}
	for _, p := range paths {
		if b, err := os.ReadFile(p); err != nil || string(b) != "built" {
			t.Fatalf("entry %q: %q %v", p, b, err)
		}
	}
}

func TestDirCacheFailedBuildLeavesNothing(t *testing.T) {
	c := DirCache{Dir: t.TempDir()}
	_, err := c.GetOrBuild("x", func(tmp string) error {
		os.WriteFile(tmp, []byte("half"), 0o644)
		return os.ErrInvalid
	})
	if err == nil {
		t.Fatal("failed build reported success")
	}
	if p, _ := c.Path("x"); fileExists(p) {
		t.Fatal("failed build left an entry")
	}
	if _, err := c.Path("../escape"); err == nil {
		t.Fatal("path traversal accepted")
	}
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }
