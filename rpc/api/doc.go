// Package api is snarkpipe's native JSON-RPC API: the SnarkPipe interface with the
// permission each method needs, its request and result types, and the documented error
// codes. It is shared by the server (package rpc) and the Go client (package rpc/client),
// builds with CGO_ENABLED=0 and imports nothing of this module but types.
//
// Transport: JSON-RPC 2.0 over HTTP POST or WebSocket at Endpoint ("/rpc/v0"), method
// names "SnarkPipe.<Method>", positional parameters. []byte values are base64 in JSON.
// Requests carry "Authorization: Bearer <token>": an HS256 JWT whose payload is
// {"Allow": ["read", "write", "admin"]} (lotus' format), made by `snarkpipe auth
// create-token`.
//
// Errors: service failures come back as JSON-RPC errors whose code is one of the Code
// constants below (the Go client returns them as *Error). Transport failures use the
// JSON-RPC 2.0 codes: -32700 parse error (malformed JSON), -32600 invalid request, -32601
// method not found, -32602 invalid params (wrong count or types).
package api
