package main

import (
	"errors"
	"fmt"
	"syscall"
)

// bindError is a listener the daemon could not open. It names the endpoint and the
// configuration key: "address already in use" alone does not say which of the daemon's
// three listeners clashed, nor what to change.
type bindError struct {
	endpoint, key, addr string
	err                 error
}

func (e *bindError) Error() string {
	msg := fmt.Sprintf("%s (%s %q): %v", e.endpoint, e.key, e.addr, e.err)
	if errors.Is(e.err, syscall.EADDRINUSE) {
		msg += fmt.Sprintf("; another process (or another snarkpipe endpoint) holds it: change %s or stop that process", e.key)
	}
	return msg
}

func (e *bindError) Unwrap() error { return e.err }
