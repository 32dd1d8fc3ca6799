GO ?= go
export CGO_ENABLED ?= 0

.PHONY: build test test-long itest bench lint demo cuda

build:
	$(GO) build -ldflags "-X main.commit=$$(git describe --always --dirty --abbrev=12 2>/dev/null)" -o bin/snarkpipe ./cmd/snarkpipe

# The CI test command: gated tests skip under -short (see README, "Tests").
test:
	$(GO) test -short -timeout 25m ./...

# Everything, including the expensive tests that -short skips.
test-long:
	$(GO) test -timeout 120m ./...

# The integration tests (itests/: the daemon binary over real sockets, simulated lotus-miner
# and Curio, faults, mixed load) including the expensive ones that -short skips: 2 KiB C2
# proofs through every front door (tens of minutes on 2 cores).
itest:
	$(GO) test -timeout 60m ./itests/

bench:
	$(GO) test -run '^$$' -bench . -benchtime 1x ./prover/...

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...

# The README's main job: start the daemon on the embedded default (dev parameters made
# once and cached; GPU if present, else CPU), prove a built-in 2 KiB sector's C2, Winning
# and Window PoSt through the JSON-RPC API, print the timings, exit (--once).
demo:
	$(GO) run ./cmd/snarkpipe daemon --demo --once

# cuda/build/libsnarkpipe_cuda.so with nvcc (CUDA >= 12.8): machine code for sm_80, sm_86,
# sm_89, sm_90, sm_100 and sm_120 plus compute_120 PTX, CUDA runtime linked statically. Go
# loads it at run time (cuda/cuda.go, no cgo). `make cuda SP_ARCHS=90` builds for one
# architecture only (quick development builds); cuda/build.sh says more.
SP_ARCHS ?=
cuda:
	SP_ARCHS="$(SP_ARCHS)" sh cuda/build.sh

# rpc/cuzk/cuzkpb from rpc/cuzk/proto (the Curio/cuzk gRPC protocol). The generator versions
# are pinned and checked so that regenerating changes nothing unless the .proto does:
# protoc from Debian bookworm's protobuf-compiler; the plugins match the
# google.golang.org/protobuf module in go.mod and the gRPC code generator.
PROTOC_VERSION := 3.21.12
PROTOC_GEN_GO_VERSION := v1.36.12
PROTOC_GEN_GO_GRPC_VERSION := v1.6.2
PROTO_TOOLS := $(CURDIR)/bin/proto-tools

.PHONY: proto
proto:
	@v=$$(protoc --version); [ "$$v" = "libprotoc $(PROTOC_VERSION)" ] || { echo "need protoc $(PROTOC_VERSION), have: $$v"; exit 1; }
	GOBIN=$(PROTO_TOOLS) $(GO) install google.golang.org/protobuf/cmd/protoc-gen-go@$(PROTOC_GEN_GO_VERSION)
	GOBIN=$(PROTO_TOOLS) $(GO) install google.golang.org/grpc/cmd/protoc-gen-go-grpc@$(PROTOC_GEN_GO_GRPC_VERSION)
	@v=$$($(PROTO_TOOLS)/protoc-gen-go --version); [ "$$v" = "protoc-gen-go $(PROTOC_GEN_GO_VERSION)" ] || { echo "unexpected $$v"; exit 1; }
	@v=$$($(PROTO_TOOLS)/protoc-gen-go-grpc --version); [ "$$v" = "protoc-gen-go-grpc $(PROTOC_GEN_GO_GRPC_VERSION:v%=%)" ] || { echo "unexpected $$v"; exit 1; }
	PATH=$(PROTO_TOOLS):$$PATH protoc -I rpc/cuzk/proto \
		--go_out=. --go_opt=module=github.com/snarkpipe/snarkpipe \
		--go-grpc_out=. --go-grpc_opt=module=github.com/snarkpipe/snarkpipe \
		rpc/cuzk/proto/cuzk/v1/proving.proto
