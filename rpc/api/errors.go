package api

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/filecoin-project/go-jsonrpc"
)

// Code is a documented error code of the API (the JSON-RPC error "code").
type Code int

// Error codes. 1 is go-jsonrpc's code for errors without a registered type; the service
// never returns it on purpose, so it means an internal failure.
const (
	CodeInternal     Code = 1 // unexpected failure; a bug
	CodeInvalidInput Code = 2 // the request can never succeed: malformed C1/vanilla bytes, invalid vanilla proof, mismatched proof type
	CodeUnsupported  Code = 3 // valid proof type that this daemon does not prove (NI-PoRep C2, SnapDeals, 32/64 GiB without a GPU); Data.ProofType names it
	CodeNotFound     Code = 4 // unknown or expired job id
	CodeUnavailable  Code = 5 // temporary: shutting down, too many jobs, parameters missing; retry later
	CodeCancelled    Code = 6 // the job was cancelled
	CodeUnauthorized Code = 7 // no token or an invalid token (HTTP 401)
	CodeForbidden    Code = 8 // the token lacks the method's permission
	CodeTooLarge     Code = 9 // request body above the server's limit (HTTP 413)
	CodeParse        Code = -32700
	CodeInvalidReq   Code = -32600
	CodeNoMethod     Code = -32601
	CodeInvalidParam Code = -32602
)

var codeNames = map[Code]string{
	CodeInternal: "internal", CodeInvalidInput: "invalid input", CodeUnsupported: "unsupported",
	CodeNotFound: "not found", CodeUnavailable: "unavailable", CodeCancelled: "cancelled",
	CodeUnauthorized: "unauthorized", CodeForbidden: "forbidden", CodeTooLarge: "request too large",
	CodeParse: "parse error", CodeInvalidReq: "invalid request", CodeNoMethod: "method not found", CodeInvalidParam: "invalid params",
}

func (c Code) String() string {
	if s, ok := codeNames[c]; ok {
		return s
	}
	return fmt.Sprintf("code %d", int(c))
}

// Temporary reports whether retrying the same request later may succeed.
func (c Code) Temporary() bool { return c == CodeUnavailable }

// ErrorData is the JSON-RPC error "data" of an *Error.
type ErrorData struct {
	ProofType string `json:",omitempty"`
	Temporary bool   `json:",omitempty"`
}

// Error is an API error with a documented code.
type Error struct {
	Code    Code
	Message string
	Data    ErrorData
}

func (e *Error) Error() string { return e.Message }

// Is lets errors.Is(err, &Error{Code: c}) match any error of code c.
func (e *Error) Is(target error) bool {
	var t *Error
	return errors.As(target, &t) && t.Code == e.Code && t.Message == ""
}

// ToJSONRPCError implements go-jsonrpc's RPCErrorCodec (server side).
func (e *Error) ToJSONRPCError() (jsonrpc.JSONRPCError, error) {
	data := e.Data
	data.Temporary = e.Code.Temporary()
	return jsonrpc.JSONRPCError{Code: jsonrpc.ErrorCode(e.Code), Message: e.Message, Data: data}, nil
}

// FromJSONRPCError implements go-jsonrpc's RPCErrorCodec (client side).
func (e *Error) FromJSONRPCError(j jsonrpc.JSONRPCError) error {
	e.Code, e.Message = Code(j.Code), j.Message
	if j.Data != nil {
		if b, err := json.Marshal(j.Data); err == nil {
			_ = json.Unmarshal(b, &e.Data)
		}
	}
	return nil
}

// Errorf builds an *Error.
func Errorf(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// CodeOf returns the code of an API error (CodeInternal for any other error).
func CodeOf(err error) Code {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return CodeInternal
}

// Errors is the registry both server and client use, so that every service error code
// round-trips as *Error.
func Errors() jsonrpc.Errors {
	errs := jsonrpc.NewErrors()
	for _, c := range []Code{CodeInternal, CodeInvalidInput, CodeUnsupported, CodeNotFound, CodeUnavailable, CodeCancelled, CodeUnauthorized, CodeForbidden, CodeTooLarge} {
		errs.Register(jsonrpc.ErrorCode(c), new(*Error))
	}
	return errs
}
