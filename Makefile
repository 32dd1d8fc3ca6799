GO ?= go
export CGO_ENABLED ?= 0

.PHONY: build test test-long bench lint demo cuda

build:
	$(GO) build -o bin/snarkpipe ./cmd/snarkpipe

# The CI test command: gated tests skip under -short (see README, "Tests").
test:
	$(GO) test -short -timeout 25m ./...

# Everything, including the expensive tests that -short skips.
test-long:
	$(GO) test -timeout 120m ./...

bench:
	$(GO) test -run '^$$' -bench . -benchtime 1x ./prover/...

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...

demo:
	$(GO) run ./cmd/snarkpipe demo

# cuda/build/libsnarkpipe_cuda.so with nvcc (CUDA >= 12): sm_90 code + compute_90 PTX,
# CUDA runtime linked statically. Go loads it at run time (cuda/cuda.go, no cgo).
cuda:
	sh cuda/build.sh
