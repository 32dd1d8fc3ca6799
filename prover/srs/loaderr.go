package srs

import (
	"errors"
	"fmt"
)

// LoadError reports a parameter file that cannot be used: missing, truncated, a point
// that does not decode (a flipped byte), a dev file where none is allowed, a shape other
// than the recorded circuit's, or a .vk that does not match. Err says which (test it with
// errors.Is against the groth16 errors, or errors.As for *groth16.FormatError and
// *VKMismatchError); nothing of the file stays loaded. Replacing the file (for instance
// with `snarkpipe params fetch`) and loading again is the remedy.
type LoadError struct {
	Path string
	Err  error
}

// Error is Err's text (which names the file or files) after a fixed prefix.
func (e *LoadError) Error() string {
	return fmt.Sprintf("srs: unusable parameter file: %v", e.Err)
}

func (e *LoadError) Unwrap() error { return e.Err }

// ErrVKMismatch is wrapped by *VKMismatchError.
var ErrVKMismatch = errors.New("verifying key does not match the parameters")

// VKMismatchError reports a .vk file whose verifying key differs from the one at the
// start of its .params file: the two files are not from the same setup, and proofs made
// with the .params would be checked against the wrong key.
type VKMismatchError struct {
	Params, VK string
	// Field is the first field that differs, in file order ("alpha_g1", …, "ic" for the
	// IC length, "ic[3]").
	Field string
}

func (e *VKMismatchError) Error() string {
	return fmt.Sprintf("%s does not belong to %s: %v (%s differs); the two files are not from the same setup",
		e.VK, e.Params, ErrVKMismatch, e.Field)
}

func (e *VKMismatchError) Unwrap() error { return ErrVKMismatch }
