package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/snarkpipe/snarkpipe/rpc"
	"github.com/snarkpipe/snarkpipe/rpc/api"
)

// The api file and token file are how local clients find a running daemon without flags,
// the way lotus clients find lotus through its repo: the daemon writes its API URL and a
// read token into its state directory at start and removes them when it stops.
const (
	apiFileName   = "api"
	tokenFileName = "token"
)

// apiFile is what one daemon wrote, so that it removes only its own files (another
// daemon on the same state directory may have replaced them since).
type apiFile struct {
	dir        string
	url, token []byte
}

// writeAPIFile writes the daemon's API URL and a read token to dir (owner-only).
func writeAPIFile(dir, url string, secret []byte) (*apiFile, error) {
	tok, err := rpc.NewToken(secret, api.PermRead)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	f := &apiFile{dir: dir, url: []byte(url + "\n"), token: []byte(tok + "\n")}
	if err := writeFileAtomic(filepath.Join(dir, apiFileName), f.url, 0o600); err != nil {
		return nil, err
	}
	if err := writeFileAtomic(filepath.Join(dir, tokenFileName), f.token, 0o600); err != nil {
		return nil, err
	}
	return f, nil
}

// remove deletes the files if they are still this daemon's.
func (f *apiFile) remove() {
	if f == nil {
		return
	}
	for name, want := range map[string][]byte{apiFileName: f.url, tokenFileName: f.token} {
		path := filepath.Join(f.dir, name)
		if got, err := os.ReadFile(path); err == nil && bytes.Equal(got, want) {
			os.Remove(path)
		}
	}
}

func writeFileAtomic(path string, b []byte, mode os.FileMode) error {
	tmp := fmt.Sprintf("%s.tmp%d", path, os.Getpid())
	if err := os.WriteFile(tmp, b, mode); err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}

// errNoLocalDaemon: no api file, so no daemon of this state directory is running.
var errNoLocalDaemon = errors.New("no running daemon found")

// readAPIFile returns the URL and token a local daemon left in dir.
func readAPIFile(dir string) (url, token string, err error) {
	u, err := os.ReadFile(filepath.Join(dir, apiFileName))
	if errors.Is(err, os.ErrNotExist) {
		return "", "", fmt.Errorf("%w (no %s): start one with snarkpipe daemon, or pass --daemon URL", errNoLocalDaemon, filepath.Join(dir, apiFileName))
	}
	if err != nil {
		return "", "", err
	}
	t, err := os.ReadFile(filepath.Join(dir, tokenFileName))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return "", "", err
	}
	return strings.TrimSpace(string(u)), strings.TrimSpace(string(t)), nil
}
