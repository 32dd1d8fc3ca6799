package sealer

import (
	"errors"
	"fmt"
)

// Code classifies a service error. Codes are stable: the JSON-RPC layer maps each one to a
// documented wire code, and callers (lotus adapter, Curio adapter, CLI) branch on them.
type Code uint8

// Service error codes.
const (
	CodeInternal     Code = iota // a bug or an unexpected failure (never a bad request)
	CodeInvalidInput             // the request can never succeed: malformed bytes, invalid vanilla proof, mismatched fields
	CodeUnsupported              // the proof type is valid but this service does not prove it (NI-PoRep C2, SnapDeals, refused by backend policy)
	CodeNotFound                 // unknown job id
	CodeUnavailable              // temporary: overloaded, parameters missing, shutting down; the same request may succeed later
	CodeCancelled                // the job was cancelled (Cancel or the caller's context)
)

var codeNames = [...]string{
	CodeInternal:     "internal",
	CodeInvalidInput: "invalid input",
	CodeUnsupported:  "unsupported",
	CodeNotFound:     "not found",
	CodeUnavailable:  "unavailable",
	CodeCancelled:    "cancelled",
}

func (c Code) String() string {
	if int(c) < len(codeNames) {
		return codeNames[c]
	}
	return fmt.Sprintf("Code(%d)", uint8(c))
}

// Temporary reports whether a request that failed with this code may succeed if retried
// unchanged.
func (c Code) Temporary() bool { return c == CodeUnavailable }

// Sentinels for errors.Is: every *Error matches the sentinel of its code.
var (
	ErrInternal     = errors.New("sealer: internal error")
	ErrInvalidInput = errors.New("sealer: invalid input")
	ErrUnsupported  = errors.New("sealer: unsupported")
	ErrNotFound     = errors.New("sealer: job not found")
	ErrUnavailable  = errors.New("sealer: temporarily unavailable")
	ErrCancelled    = errors.New("sealer: cancelled")
)

var codeSentinels = [...]error{
	CodeInternal:     ErrInternal,
	CodeInvalidInput: ErrInvalidInput,
	CodeUnsupported:  ErrUnsupported,
	CodeNotFound:     ErrNotFound,
	CodeUnavailable:  ErrUnavailable,
	CodeCancelled:    ErrCancelled,
}

// Error is every error the Service returns. ProofType names the registered proof the
// request was about (Rust variant name, e.g. "StackedDrg2KiBV1_2_Feat_NonInteractivePoRep")
// when one is known; Err is the underlying cause (a *VerifyError, a vanilla decode error...).
type Error struct {
	Code      Code
	ProofType string
	Msg       string
	Err       error
}

func (e *Error) Error() string {
	msg := "sealer: " + e.Code.String()
	if e.ProofType != "" {
		msg += " (" + e.ProofType + ")"
	}
	if e.Msg != "" {
		msg += ": " + e.Msg
	}
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg
}

// Unwrap exposes the cause.
func (e *Error) Unwrap() error { return e.Err }

// Is matches the sentinel of the error's code.
func (e *Error) Is(target error) bool {
	return int(e.Code) < len(codeSentinels) && codeSentinels[e.Code] == target
}

// Temporary reports whether retrying the same request may succeed.
func (e *Error) Temporary() bool { return e.Code.Temporary() }

// CodeOf returns the code of a service error; errors that are not *Error are internal.
func CodeOf(err error) Code {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return CodeInternal
}

// IsTemporary reports whether err is a service error worth retrying unchanged.
func IsTemporary(err error) bool { return CodeOf(err).Temporary() }

func newError(code Code, proofType string, cause error, format string, args ...any) *Error {
	return &Error{Code: code, ProofType: proofType, Msg: fmt.Sprintf(format, args...), Err: cause}
}

// unsupported is the typed error for a proof type the service does not prove.
func unsupported(proofType, why string) *Error {
	return &Error{Code: CodeUnsupported, ProofType: proofType, Msg: why}
}
