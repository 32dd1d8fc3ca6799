package groth16

import (
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
	"strings"

	"golang.org/x/crypto/blake2b"
)

// DigestLen is the length of a parameters.json "digest": rust-fil-proofs hashes the whole
// file with BLAKE2b-512 and keeps the first 32 hex characters (16 bytes) of the digest
// (storage-proofs-core parameter_cache.rs, when verify_production_params is set).
const DigestLen = 32

// ErrDigestMismatch reports a file whose digest differs from the expected one.
var ErrDigestMismatch = errors.New("groth16: parameter file digest mismatch")

// Digest returns the parameters.json-style digest of a whole file's bytes.
func Digest(data []byte) string {
	sum := blake2b.Sum512(data)
	return hex.EncodeToString(sum[:DigestLen/2])
}

// DigestWriter accumulates the parameters.json-style digest of the bytes written to it,
// so that a download can be checked as it is written.
type DigestWriter struct{ h hash.Hash }

// NewDigestWriter returns an empty digest.
func NewDigestWriter() *DigestWriter {
	h, _ := blake2b.New512(nil) // a nil key never fails
	return &DigestWriter{h: h}
}

// Write adds p to the digest; it never fails.
func (d *DigestWriter) Write(p []byte) (int, error) { return d.h.Write(p) }

// Digest returns the digest of everything written so far.
func (d *DigestWriter) Digest() string { return hex.EncodeToString(d.h.Sum(nil)[:DigestLen/2]) }

// FileDigest streams the file at path through BLAKE2b-512 and returns its digest.
func FileDigest(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("groth16: digest: %w", err)
	}
	defer f.Close()
	d := NewDigestWriter()
	if _, err := io.Copy(d, f); err != nil {
		return "", fmt.Errorf("groth16: digest %s: %w", path, err)
	}
	return d.Digest(), nil
}

// checkDigest compares the digest of data with want (case-insensitive hex).
func checkDigest(data []byte, want string) error {
	if got := Digest(data); !strings.EqualFold(got, want) {
		return fmt.Errorf("%w: got %s, want %s", ErrDigestMismatch, got, strings.ToLower(want))
	}
	return nil
}

// isDigestString reports whether s looks like a parameters.json digest.
func isDigestString(s string) bool {
	if len(s) != DigestLen {
		return false
	}
	_, err := hex.DecodeString(s)
	return err == nil
}
