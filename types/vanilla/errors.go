package vanilla

import (
	"errors"
	"fmt"
)

// ErrMalformed is wrapped by every decoding error: the input is not a well-formed value of the
// expected layout.
var ErrMalformed = errors.New("vanilla: malformed input")

// ErrLimit is wrapped when a count or nesting depth exceeds what any supported proof type
// allows.
var ErrLimit = errors.New("vanilla: limit exceeded")

// ErrShape is wrapped when a well-formed proof does not have the shape its proof type requires
// (partitions, challenges, layers, tree shape).
var ErrShape = errors.New("vanilla: wrong proof shape")

// DecodeError locates a decoding failure: the byte offset and the field path where it happened.
type DecodeError struct {
	Offset int
	Path   string
	Err    error // wraps ErrMalformed or ErrLimit
	Msg    string
}

func (e *DecodeError) Error() string {
	return fmt.Sprintf("%v at offset %d (%s): %s", e.Err, e.Offset, e.Path, e.Msg)
}

func (e *DecodeError) Unwrap() error { return e.Err }

func shapeErrorf(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrShape}, args...)...)
}
