// Package rpc serves snarkpipe's native JSON-RPC API (rpc/api) over HTTP and WebSocket:
// HS256 JWT authentication, a permission check on every method, an explicit request size
// limit, and the translation between the API's wire types and package sealer's Service.
// The lotus-worker and Curio adapters live in rpc/lotus and rpc/cuzk.
package rpc
