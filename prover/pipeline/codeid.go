package pipeline

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
)

// CodeIDOfExecutable is a Deps.CodeID for the running binary: the SHA-256 of its file.
// Circuit code is compiled into the binary, so two processes of one file synthesize
// every circuit id identically; any rebuild that could change a circuit changes the
// file. Reading a binary of tens of MB takes a fraction of a second, once per process.
func CodeIDOfExecutable() (string, error) {
	path, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("pipeline: code id: %w", err)
	}
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("pipeline: code id: %w", err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("pipeline: code id of %s: %w", path, err)
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), nil
}
