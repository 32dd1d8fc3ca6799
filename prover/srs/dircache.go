package srs

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// DirCache is a directory of artefacts that are expensive to build (dev parameters,
// recorded matrices), each built once per machine. Building holds an exclusive file lock,
// so processes that ask for the same entry at once (parallel test packages) wait for the
// first builder instead of racing it; an entry appears atomically by rename, so a reader
// never sees a half-written file.
type DirCache struct{ Dir string }

// Path returns the path of entry name (which must be a plain file name).
func (c DirCache) Path(name string) (string, error) {
	if name == "" || strings.ContainsAny(name, `/\`) || name == "." || name == ".." {
		return "", fmt.Errorf("srs: invalid cache entry name %q", name)
	}
	return filepath.Join(c.Dir, name), nil
}

// GetOrBuild returns the path of entry name, calling build(tmpPath) to create it when it
// is missing. build writes the entry to tmpPath; on success it is renamed into place.
func (c DirCache) GetOrBuild(name string, build func(tmpPath string) error) (string, error) {
	path, err := c.Path(name)
	if err != nil {
		return "", err
	}
	if _, err := os.Stat(path); err == nil {
		return path, nil
	}
	if err := os.MkdirAll(c.Dir, 0o755); err != nil {
		return "", fmt.Errorf("srs: cache directory: %w", err)
	}
	unlock, err := lockFile(path + ".lock")
	if err != nil {
		return "", err
	}
	defer unlock()
	if _, err := os.Stat(path); err == nil {
		return path, nil // built by another process while we waited
	}
	tmp := fmt.Sprintf("%s.tmp%d", path, os.Getpid())
	if err := build(tmp); err != nil {
		os.Remove(tmp)
		return "", fmt.Errorf("srs: building cache entry %s: %w", name, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return "", fmt.Errorf("srs: cache entry %s: %w", name, err)
	}
	return path, nil
}

func lockFile(path string) (func(), error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("srs: cache lock: %w", err)
	}
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if !errors.Is(err, syscall.EINTR) {
			break
		}
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("srs: cache lock %s: %w", path, err)
	}
	return func() {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}
