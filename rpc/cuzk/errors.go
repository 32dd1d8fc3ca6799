package cuzk

import (
	"fmt"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/snarkpipe/snarkpipe/sealer"
)

// grpcCodes maps the service's error codes to gRPC codes. Unsupported proof kinds (NI-PoRep
// C2, 32/64 GiB on a CPU-only service) are Unimplemented: the request is well formed,
// this server does not do it.
var grpcCodes = map[sealer.Code]codes.Code{
	sealer.CodeInternal:     codes.Internal,
	sealer.CodeInvalidInput: codes.InvalidArgument,
	sealer.CodeUnsupported:  codes.Unimplemented,
	sealer.CodeNotFound:     codes.NotFound,
	sealer.CodeUnavailable:  codes.Unavailable,
	sealer.CodeCancelled:    codes.Canceled,
}

// statusError turns a service error into a gRPC status error; the message keeps the
// service's text, which names the proof type and the failed check.
func statusError(err error) error {
	c, ok := grpcCodes[sealer.CodeOf(err)]
	if !ok {
		c = codes.Internal
	}
	return status.Error(c, err.Error())
}

func invalidArgument(format string, args ...any) error {
	return status.Error(codes.InvalidArgument, "cuzk: "+fmt.Sprintf(format, args...))
}
